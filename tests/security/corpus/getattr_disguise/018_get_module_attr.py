# expect: stopped
# class: getattr_disguise
# why: get('__module__') then walking to the module object
await goto_home()
stores = await list_stores(section='Best near you')
m = stores.get("__module__")
result = m
