# expect: stopped
# class: resources
# why: == between two aliased structures of 10**12 items
x = [0] * 10**6
x2 = list(x)
a = [x] * 10**6
b = [x2] * 10**6
result = a == b
