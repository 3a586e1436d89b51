# expect: stopped
# class: frames
# why: frame f_locals of the plan to add a forbidden name
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
g = (x for x in [1])
f = c.get(g, "gi_frame")
back = c.get(f, "f_back")
loc = c.get(back, "f_globals")
loc["evil"] = c
result = str(loc.get("evil"))
