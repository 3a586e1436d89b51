# expect: ok
# class: syntax
# why: starred unpacking and dict merge
# result: [1, [2, 3], {'x': 1, 'y': 2}]
a, *rest = [1, 2, 3]
d = {**{"x": 1}, "y": 2}
result = [a, rest, d]
