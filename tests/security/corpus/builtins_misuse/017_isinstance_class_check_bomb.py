# expect: stopped
# class: builtins_misuse
# why: isinstance with a deeply nested tuple of types
t = (int,)
for i in range(100000):
    t = (t,)
result = isinstance(1, t)
