# expect: stopped
# class: resources
# why: set() of 200,000 ints that all hash to 0 (quadratic inside C)
m = 2**61 - 1
keys = [i * m for i in range(1, 200000)]
s = set(keys)
result = len(s)
