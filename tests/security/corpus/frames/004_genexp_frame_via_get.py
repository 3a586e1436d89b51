# expect: stopped
# class: frames
# why: gi_frame fetched by the generic getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
g = (x for x in [1])
f = c.get(g, "gi_frame")
result = str(f)
