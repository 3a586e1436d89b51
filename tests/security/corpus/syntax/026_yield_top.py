# expect: reject
# class: syntax
# why: yield at top level
x = yield 1
result = 1
