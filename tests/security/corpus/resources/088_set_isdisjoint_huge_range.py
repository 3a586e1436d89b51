# expect: stopped
# class: resources
# why: set.isdisjoint runs through any iterable in C: a trillion-item range, no step counted
result = {-1}.isdisjoint(range(10 ** 12))
