# expect: reject
# class: builtins_misuse
# why: __builtins__ may not be mentioned
result = str(__builtins__)
