# expect: reject
# class: syntax
# why: calling the result of a subscript
fs = [print]
fs[0]("x")
result = 1
