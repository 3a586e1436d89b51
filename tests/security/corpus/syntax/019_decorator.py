# expect: reject
# class: syntax
# why: a decorator on a function
@print
def f():
    pass
result = 1
