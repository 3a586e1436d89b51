# expect: reject
# class: foreign_assign
# why: comprehension targets must be names
await goto_home()
stores = await list_stores(section='Best near you')
x = [1 for stores.y in range(3)]
result = 1
