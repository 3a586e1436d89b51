# expect: reject
# class: syntax
# why: yield from
yield from [1]
result = 1
