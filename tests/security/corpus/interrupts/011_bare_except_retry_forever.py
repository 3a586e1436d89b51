# expect: stopped
# class: interrupts
# why: retry a failing call forever under a bare except
while True:
    try:
        await goto_store(name="no-such-store-anywhere")
        break
    except:
        pass
result = 1
