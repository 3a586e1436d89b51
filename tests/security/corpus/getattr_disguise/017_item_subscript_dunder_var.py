# expect: stopped
# class: getattr_disguise
# why: item model subscripted by a dunder held in a variable
await goto_home()
stores = await list_stores(section='Best near you')
name = "__init__"
f = stores.items[0][name]
result = str(f)
