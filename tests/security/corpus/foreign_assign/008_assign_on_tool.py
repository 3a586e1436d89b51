# expect: stopped
# class: foreign_assign
# why: set an attribute on a tool binding
await goto_home()
stores = await list_stores(section='Best near you')
list_stores.extra = 1
result = list_stores.extra
