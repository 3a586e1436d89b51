# expect: reject
# class: syntax
# why: a lambda as a sort key
result = sorted([2, 1], key=lambda x: -x)
