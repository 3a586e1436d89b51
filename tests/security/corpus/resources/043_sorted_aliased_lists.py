# expect: stopped
# class: resources
# why: sorting a million references to one big list compares it with itself a million times
x = [0] * 10**6
y = [x] * 10**6
result = len(sorted(y))
