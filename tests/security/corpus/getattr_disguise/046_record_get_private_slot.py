# expect: stopped
# class: getattr_disguise
# why: get('_f') / ['_f'] on a result looks for a private slot
await goto_home()
stores = await list_stores(section='Best near you')
f = stores.get("_f")
g = stores["_f"]
result = str(f) + str(g)
