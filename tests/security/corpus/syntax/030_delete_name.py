# expect: reject
# class: syntax
# why: del of a name
x = 1
del x
result = 1
