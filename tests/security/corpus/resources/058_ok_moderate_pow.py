# expect: ok
# class: resources
# why: 2**200 is a small number
# result: 376
result = 2**200 % 1000
