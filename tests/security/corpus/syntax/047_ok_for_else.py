# expect: ok
# class: syntax
# why: for/else and while/else
# result: 2
x = -1
for i in range(3):
    pass
else:
    x = 2
result = x
