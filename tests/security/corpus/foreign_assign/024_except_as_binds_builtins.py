# expect: reject
# class: foreign_assign
# why: the name after 'except ... as' is a string field, not a Name node; binding __builtins__ (or a guard hook) there slipped past the dunder check
try:
    raise ValueError("x")
except ValueError as __builtins__:
    pass
result = 1
