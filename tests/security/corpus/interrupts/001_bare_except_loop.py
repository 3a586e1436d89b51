# expect: stopped
# class: interrupts
# why: while True: try/except: pass swallows everything, cancellation included
while True:
    try:
        pass
    except:
        pass
result = 1
