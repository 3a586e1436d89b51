# expect: stopped
# class: interrupts
# why: a bare except around a long comprehension, in a loop
while True:
    try:
        x = [i for i in range(10**6)]
    except:
        pass
result = 1
