# expect: ok
# class: interrupts
# why: a retry loop with a bound and a break
# result: 1
tries = 0
while tries < 3:
    tries += 1
    try:
        await goto_home()
        break
    except ToolError:
        pass
result = tries
