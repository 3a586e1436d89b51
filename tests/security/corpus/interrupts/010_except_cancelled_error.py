# expect: reject
# class: interrupts
# why: except asyncio.CancelledError (an attribute)
try:
    pass
except asyncio.CancelledError:
    pass
result = 1
