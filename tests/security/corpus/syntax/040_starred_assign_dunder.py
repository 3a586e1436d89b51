# expect: reject
# class: syntax
# why: starred assignment to a dunder name
a, *__x = [1, 2]
result = 1
