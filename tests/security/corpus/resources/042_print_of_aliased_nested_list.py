# expect: stopped
# class: resources
# why: print() of the same aliased structure
x = [0] * 10**6
y = [x] * 10**6
print(y)
result = 1
