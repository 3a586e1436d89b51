# expect: reject
# class: syntax
# why: a walrus binding a dunder name
if (__builtins__ := {}):
    pass
result = 1
