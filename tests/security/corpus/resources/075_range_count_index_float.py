# expect: ok
# class: resources
# why: range.count and range.index of a float scan the range in C; the guard answers at once
# result: [0, 1, 9]
r = range(1, 10 ** 16)
result = [r.count(0.5), r.count(3.0), r.index(10.0)]
