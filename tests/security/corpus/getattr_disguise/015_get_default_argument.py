# expect: stopped
# class: getattr_disguise
# why: get(name, default) with a dunder name and a default
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__", None)
result = str(c)
