# expect: stopped
# class: resources
# why: an exception whose argument renders to 10**12 characters
x = [0] * 10**6
result = 0
raise ValueError([x] * 10**6)
