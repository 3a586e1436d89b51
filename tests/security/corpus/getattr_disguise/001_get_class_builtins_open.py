# expect: stopped
# class: getattr_disguise
# why: get('__class__').get is a generic getattr: __globals__ -> builtins -> open
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.o = b.get("open")
c.o("MARKER_PATH", "w").write("x")
result = "written"
