# expect: reject
# class: syntax
# why: async with
async with goto_home() as x:
    pass
result = 1
