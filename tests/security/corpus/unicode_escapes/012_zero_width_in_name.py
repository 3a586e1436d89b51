# expect: reject
# class: unicode_escapes
# why: a zero-width space inside an identifier is a syntax error
ex​ec("x")
result = 1
