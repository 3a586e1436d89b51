# expect: stopped
# class: builtins_misuse
# why: sorted(key=print) compares Nones
x = sorted([3, 1, 2], key=print)
result = x
