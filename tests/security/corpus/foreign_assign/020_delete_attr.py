# expect: reject
# class: foreign_assign
# why: del is not allowed
await goto_home()
stores = await list_stores(section='Best near you')
del stores.items
result = 1
