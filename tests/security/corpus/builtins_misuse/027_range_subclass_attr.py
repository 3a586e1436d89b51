# expect: stopped
# class: builtins_misuse
# why: range object attributes by getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
r = range(3)
c.rd = c.get(r, "__reduce__")
result = str(c.rd())
