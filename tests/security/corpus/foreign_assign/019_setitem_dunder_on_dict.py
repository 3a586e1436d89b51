# expect: reject
# class: foreign_assign
# why: writing __builtins__ into a dict the runtime hands around
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
fg["__builtins__"] = fg
result = 1
