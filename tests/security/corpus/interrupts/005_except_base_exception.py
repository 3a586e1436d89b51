# expect: reject
# class: interrupts
# why: except BaseException is not an allowed name
while True:
    try:
        pass
    except BaseException:
        pass
result = 1
