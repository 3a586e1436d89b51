# expect: ok
# class: builtins_misuse
# why: sorted(key=len)
# result: ['a', 'bb', 'ccc']
result = sorted(["ccc", "a", "bb"], key=len)
