# expect: reject
# class: builtins_misuse
# why: eval may not be mentioned
result = eval("1 + 1")
