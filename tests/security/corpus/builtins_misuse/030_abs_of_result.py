# expect: reject
# class: builtins_misuse
# why: abs() of a result object with an __abs__ set by the plan
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.__abs__ = b.get("exec")
result = abs(stores)
