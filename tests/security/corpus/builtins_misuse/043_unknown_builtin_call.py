# expect: reject
# class: builtins_misuse
# why: chr is not a plan builtin (unknown-tool)
result = chr(65)
