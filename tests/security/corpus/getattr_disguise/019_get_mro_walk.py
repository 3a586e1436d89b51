# expect: stopped
# class: getattr_disguise
# why: class.get(class, '__mro__') walks to object and its subclasses
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
mro = c.get(c, "__mro__")
obj = mro[-1]
c.subs = c.get(obj, "__subclasses__")
result = str(len(c.subs()))
