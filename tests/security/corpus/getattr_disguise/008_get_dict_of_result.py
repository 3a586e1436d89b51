# expect: stopped
# class: getattr_disguise
# why: get('__dict__') exposes the instance dictionary
await goto_home()
stores = await list_stores(section='Best near you')
d = stores.get("__dict__")
result = str(d)
