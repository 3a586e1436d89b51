# expect: reject
# class: syntax
# why: a decorator on a class
@sorted
class A:
    pass
result = 1
