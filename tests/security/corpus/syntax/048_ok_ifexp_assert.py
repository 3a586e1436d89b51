# expect: ok
# class: syntax
# why: a conditional expression and an assert
# result: 'big'
x = 5
assert x > 1, "small"
result = "big" if x > 3 else "small"
