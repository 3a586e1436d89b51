# expect: reject
# class: interrupts
# why: an except clause naming a class fetched at run time
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
k = c.get(c, "__base__")
try:
    pass
except k:
    pass
result = 1
