# expect: stopped
# class: interrupts
# why: an exception raised in finally replaces the step limit in flight; the plan catches that one and loops on
n = 0
while True:
    try:
        try:
            while True:
                n += 1
        finally:
            x = 1 / 0
    except ZeroDivisionError:
        n += 1
