# expect: reject
# class: syntax
# why: async def
async def f():
    return 1
result = 1
