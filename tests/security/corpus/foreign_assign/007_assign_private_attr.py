# expect: reject
# class: foreign_assign
# why: assignment to a private attribute
await goto_home()
stores = await list_stores(section='Best near you')
stores._x = 1
result = 1
