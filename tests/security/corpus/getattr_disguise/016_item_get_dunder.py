# expect: stopped
# class: getattr_disguise
# why: get('__class__') on a list item model
await goto_home()
stores = await list_stores(section='Best near you')
s = stores.items[0]
k = s.get("__class__")
fg = k.get(k.get, "__globals__")
b = fg.get("__builtins__")
k.o = b.get("open")
k.o("MARKER_PATH", "w").write("x")
result = 1
