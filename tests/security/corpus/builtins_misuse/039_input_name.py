# expect: reject
# class: builtins_misuse
# why: input may not be mentioned
result = input()
