# expect: reject
# class: syntax
# why: a lambda
f = lambda x: x
result = 1
