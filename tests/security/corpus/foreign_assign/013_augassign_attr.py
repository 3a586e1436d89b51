# expect: stopped
# class: foreign_assign
# why: augmented assignment on a result's field rebinding it
await goto_home()
stores = await list_stores(section='Best near you')
stores.items += [stores]
result = len(stores.items)
