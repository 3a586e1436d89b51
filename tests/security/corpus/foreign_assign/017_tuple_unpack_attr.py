# expect: reject
# class: foreign_assign
# why: tuple unpacking into attributes of a result
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
stores.a, stores.bb = b.get("open"), 1
stores.a("MARKER_PATH", "w")
result = 1
