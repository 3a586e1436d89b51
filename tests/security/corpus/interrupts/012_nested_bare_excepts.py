# expect: stopped
# class: interrupts
# why: nested bare excepts so one swallowed cancel is followed by another loop
while True:
    try:
        while True:
            try:
                await goto_home()
            except:
                pass
    except:
        pass
result = 1
