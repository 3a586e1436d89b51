# expect: ok
# class: builtins_misuse
# why: dict/list/set/tuple constructors on plain data
# result: [{'a': 1}, [1, 2], [1, 3], ['a', 'b']]
d = dict(a=1)
l = list((1, 2))
s = sorted(set([3, 3, 1]))
t = list(tuple("ab"))
result = [d, l, s, t]
