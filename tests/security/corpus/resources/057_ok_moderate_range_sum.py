# expect: ok
# class: resources
# why: sum over range(100000) is fine
# result: 4999950000
result = sum(range(100000))
