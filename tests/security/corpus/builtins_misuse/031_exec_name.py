# expect: reject
# class: builtins_misuse
# why: exec may not be mentioned
exec("x = 1")
result = 1
