# expect: reject
# class: builtins_misuse
# why: iter and next may not be mentioned
it = iter([1])
result = next(it)
