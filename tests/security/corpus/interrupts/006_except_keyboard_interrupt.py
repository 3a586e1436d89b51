# expect: reject
# class: interrupts
# why: except KeyboardInterrupt
while True:
    try:
        pass
    except KeyboardInterrupt:
        pass
result = 1
