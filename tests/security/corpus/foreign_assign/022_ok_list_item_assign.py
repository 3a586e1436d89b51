# expect: ok
# class: foreign_assign
# why: item assignment on a plain list
# result: [0, 5, 2]
xs = [0, 0, 0]
xs[1] = 5
xs[-1] += 2
result = xs
