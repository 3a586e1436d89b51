# expect: stopped
# class: resources
# why: an f-string of the same aliased structure
x = [0] * 10**6
y = [x] * 10**6
result = len(f"{y}")
