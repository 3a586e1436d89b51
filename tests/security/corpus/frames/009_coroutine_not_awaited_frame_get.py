# expect: reject
# class: frames
# why: an un-awaited tool coroutine's frame through getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
co = goto_home()
f = c.get(co, "cr_frame")
g = c.get(f, "f_globals")
result = str(g)
