# expect: reject
# class: syntax
# why: nonlocal at top level
nonlocal x
result = 1
