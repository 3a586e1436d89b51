# expect: reject
# class: foreign_assign
# why: assign a builtin onto a result object and call it as a method (h.f = fn; h.f())
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
stores.f = b.get("open")
stores.f("MARKER_PATH", "w").write("x")
result = 1
