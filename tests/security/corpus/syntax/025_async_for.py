# expect: reject
# class: syntax
# why: async for
async for x in goto_home():
    pass
result = 1
