# expect: stopped
# class: resources
# why: dict() of colliding keys via zip
m = 2**61 - 1
keys = [i * m for i in range(1, 200000)]
d = dict(zip(keys, keys))
result = len(d)
