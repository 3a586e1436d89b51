# expect: stopped
# class: interrupts
# why: bare except that continues
while True:
    try:
        await list_sections()
    except:
        continue
result = 1
