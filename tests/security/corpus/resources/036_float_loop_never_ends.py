# expect: stopped
# class: resources
# why: a float loop whose condition never turns false
x = 1.0
while x > 0:
    x = x / 2 + 1e-300
result = x
