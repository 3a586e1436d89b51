# expect: stopped
# class: resources
# why: list += any iterable extends the list in C; from range(10**9) that is a billion items with no step counted
a = []
a += range(10 ** 9)
result = len(a)
