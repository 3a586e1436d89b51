# expect: stopped
# class: getattr_disguise
# why: the tool binding itself has __globals__ (the runtime's module)
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
g = c.get(list_stores, "__globals__")
b = g.get("__builtins__")
c.o = b.get("open")
c.o("MARKER_PATH", "w").write("x")
result = "written"
