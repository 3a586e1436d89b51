# expect: reject
# class: syntax
# why: class
class A:
    pass
result = 1
