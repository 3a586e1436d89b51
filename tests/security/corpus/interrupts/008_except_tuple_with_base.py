# expect: reject
# class: interrupts
# why: a tuple with BaseException hidden in it
try:
    pass
except (ValueError, BaseException):
    pass
result = 1
