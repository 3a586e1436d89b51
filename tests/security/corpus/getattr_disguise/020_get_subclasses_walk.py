# expect: stopped
# class: getattr_disguise
# why: object.__subclasses__ through the generic getattr, looking for a loader
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
base = c.get(c, "__base__")
while c.get(base, "__base__") is not None:
    base = c.get(base, "__base__")
c.s = c.get(base, "__subclasses__")
names = [k.get(k, "__name__") if False else str(k) for k in c.s()]
result = len(names)
