# expect: reject
# class: interrupts
# why: continue in a finally block drops the exception in flight, the time limit included, and loops on
n = 0
while True:
    try:
        while True:
            n += 1
    finally:
        continue
