# expect: reject
# class: syntax
# why: a chained comparison with in cannot go through the guard as one membership test
result = 0.5 in range(10 ** 15) == False
