# expect: reject
# class: foreign_assign
# why: assignment to a dunder attribute
await goto_home()
stores = await list_stores(section='Best near you')
stores.__class__ = dict
result = 1
