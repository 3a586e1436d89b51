# expect: stopped
# class: frames
# why: a generator's frame -> f_builtins by string getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
g = (x for x in [1])
f = c.get(g, "gi_frame")
b = c.get(f, "f_builtins")
c.o = b.get("open")
c.o("MARKER_PATH", "w")
result = 1
