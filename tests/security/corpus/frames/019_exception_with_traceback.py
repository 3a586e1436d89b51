# expect: stopped
# class: frames
# why: with_traceback() on a caught exception
try:
    1 / 0
except ZeroDivisionError as e:
    x = e.with_traceback(None)
    result = str(x)
