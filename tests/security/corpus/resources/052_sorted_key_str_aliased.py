# expect: stopped
# class: resources
# why: sorted with key=str over aliased big lists (str in C, not through the guard)
x = [0] * 10**6
result = len(sorted([x] * 10**4, key=str))
