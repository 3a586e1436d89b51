# expect: ok
# class: interrupts
# why: except ValueError around int()
# result: -1
try:
    x = int("abc")
except ValueError:
    x = -1
result = x
