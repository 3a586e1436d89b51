# expect: stopped
# class: resources
# why: `in` over a million equal big lists
x = [0] * 10**6
x2 = list(x) + [1]
y = [x] * 10**6
result = x2 in y
