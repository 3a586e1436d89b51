# expect: reject
# class: builtins_misuse
# why: globals may not be mentioned
result = str(globals())
