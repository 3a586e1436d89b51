# expect: stopped
# class: interrupts
# why: a bare except around ai_eval in an endless loop
while True:
    try:
        await ai_eval("x {a}", a=1)
    except:
        pass
result = 1
