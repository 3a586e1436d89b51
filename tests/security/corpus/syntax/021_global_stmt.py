# expect: reject
# class: syntax
# why: global
global result
result = 1
