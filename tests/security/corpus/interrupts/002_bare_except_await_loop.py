# expect: stopped
# class: interrupts
# why: a bare except around an awaited call inside an endless loop
while True:
    try:
        await goto_home()
    except:
        pass
result = 1
