# expect: stopped
# class: frames
# why: inside a running generator, its frame's f_back is the plan's frame
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
holder = []
g = (holder.append(c.get(c.get(gg, "gi_frame"), "f_back")) for gg in [0])
result = 1
