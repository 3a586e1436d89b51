# expect: reject
# class: syntax
# why: assigning __builtins__
__builtins__ = {}
result = 1
