# expect: stopped
# class: interrupts
# why: a finally clause that loops forever
try:
    pass
finally:
    while True:
        pass
result = 1
