# expect: reject
# class: syntax
# why: yield inside a generator expression
g = ((yield x) for x in [1])
result = 1
