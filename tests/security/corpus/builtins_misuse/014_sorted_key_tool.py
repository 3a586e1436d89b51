# expect: stopped
# class: builtins_misuse
# why: sorted(key=a tool): coroutines compared
x = sorted(["a", "b"], key=search)
result = x
