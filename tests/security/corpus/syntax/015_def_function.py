# expect: reject
# class: syntax
# why: def
def f():
    return 1
result = 1
