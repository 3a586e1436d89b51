# expect: stopped
# class: getattr_disguise
# why: a dunder name taken from a dict value
await goto_home()
stores = await list_stores(section='Best near you')
names = {"a": "__class__"}
c = stores.get(names["a"])
result = str(c)
