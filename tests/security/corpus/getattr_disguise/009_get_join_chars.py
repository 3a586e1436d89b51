# expect: stopped
# class: getattr_disguise
# why: a dunder name joined from characters
await goto_home()
stores = await list_stores(section='Best near you')
k = "".join(["_", "_", "c", "l", "a", "s", "s", "_", "_"])
c = stores.get(k)
fg = c.get(c.get, "".join(["__", "globals", "__"]))
b = fg.get("".join(["__", "builtins", "__"]))
c.o = b.get("open")
c.o("MARKER_PATH", "w").write("x")
result = "written"
