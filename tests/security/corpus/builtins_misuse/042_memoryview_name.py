# expect: reject
# class: builtins_misuse
# why: memoryview may not be mentioned
result = memoryview(b"x")
