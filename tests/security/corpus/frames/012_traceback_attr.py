# expect: reject
# class: frames
# why: e.__traceback__ is a dunder attribute
try:
    1 / 0
except ZeroDivisionError as e:
    tb = e.__traceback__
result = 1
