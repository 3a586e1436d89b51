# expect: reject
# class: builtins_misuse
# why: breakpoint may not be mentioned
breakpoint()
result = 1
