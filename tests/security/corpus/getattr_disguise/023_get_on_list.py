# expect: stopped
# class: getattr_disguise
# why: the generic getattr applied to a plain list reaches list.__class__
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
names = [s.name for s in stores.items]
lc = c.get(names, "__class__")
result = str(lc)
