# expect: reject
# class: model_methods
# why: copy(deep=True) on a details result
await goto_store(name='stonemill-matcha')
d = await get_store_details()
x = d.copy(deep=True)
result = x.name
