# expect: stopped
# class: interrupts
# why: swallowing RuntimeError (a limit error might be one) forever
while True:
    try:
        x = 10**10**5
    except RuntimeError:
        pass
result = 1
