# expect: reject
# class: interrupts
# why: except SystemExit
try:
    pass
except SystemExit:
    pass
result = 1
