# expect: stopped
# class: getattr_disguise
# why: a dunder name via lower()
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__CLASS__".lower())
result = str(c)
