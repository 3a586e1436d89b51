# expect: stopped
# class: getattr_disguise
# why: a dunder subscript through a variable is not a constant
await goto_home()
stores = await list_stores(section='Best near you')
k = "__class__"
c = stores[k]
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.o = b.get("open")
c.o("MARKER_PATH", "w").write("x")
result = "written"
