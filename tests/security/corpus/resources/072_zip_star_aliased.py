# expect: stopped
# class: resources
# why: zip(*[big] * n): every step builds a million-tuple
x = [0] * 10**6
n = 0
for t in zip(*([x] * 10**6)):
    n += 1
result = n
