# expect: reject
# class: syntax
# why: return at top level
return 1
