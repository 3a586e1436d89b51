# expect: reject
# class: foreign_assign
# why: a walrus target must be a name
await goto_home()
stores = await list_stores(section='Best near you')
result = (stores.x := 1)
