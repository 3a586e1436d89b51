# expect: stopped
# class: interrupts
# why: except Exception in an endless loop of tool calls
while True:
    try:
        await goto_home()
    except Exception:
        pass
result = 1
