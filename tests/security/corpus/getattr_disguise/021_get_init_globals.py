# expect: stopped
# class: getattr_disguise
# why: the model's __init__ function and its __globals__ (pydantic.main)
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
init = c.get(c, "__init__")
g = c.get(init, "__globals__")
b = g.get("__builtins__")
c.o = b.get("open")
c.o("MARKER_PATH", "w").write("x")
result = "written"
