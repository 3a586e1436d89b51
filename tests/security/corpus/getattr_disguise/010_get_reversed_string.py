# expect: stopped
# class: getattr_disguise
# why: a dunder name spelled backwards and reversed at run time
await goto_home()
stores = await list_stores(section='Best near you')
k = "__ssalc__"[::-1]
c = stores.get(k)
result = str(c)
