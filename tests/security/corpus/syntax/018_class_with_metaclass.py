# expect: reject
# class: syntax
# why: a class with a metaclass keyword
class A(metaclass=print):
    pass
result = 1
