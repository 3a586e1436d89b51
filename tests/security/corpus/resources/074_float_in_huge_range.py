# expect: ok
# class: resources
# why: a float in range(10**15) makes Python compare it with every item in C; the guard answers at once
# result: [False, True, True]
r = range(10 ** 15)
result = [0.5 in r, 7.0 in r, "x" not in r]
