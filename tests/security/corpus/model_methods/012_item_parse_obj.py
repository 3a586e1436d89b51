# expect: reject
# class: model_methods
# why: parse_obj on an item model
await goto_home()
stores = await list_stores(section='Best near you')
s = stores.items[0]
x = s.parse_obj({"name": "a"})
result = str(x)
