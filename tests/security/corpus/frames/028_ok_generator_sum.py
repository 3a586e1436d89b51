# expect: ok
# class: frames
# why: a generator expression consumed by sum
# result: 285
result = sum(x * x for x in range(10))
