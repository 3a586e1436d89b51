# expect: reject
# class: syntax
# why: calling a conditional expression
result = (print if True else len)("x")
