# expect: reject
# class: model_methods
# why: replacing a result class's method with a builtin so tools call it
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.model_dump = b.get("exec")
result = str(stores.model_dump())
