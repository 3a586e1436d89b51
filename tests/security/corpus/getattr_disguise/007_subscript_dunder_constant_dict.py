# expect: reject
# class: getattr_disguise
# why: a constant '__builtins__' subscript
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
o = fg["__builtins__"]
result = str(o)
