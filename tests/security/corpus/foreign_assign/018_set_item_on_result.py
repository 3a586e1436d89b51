# expect: stopped
# class: foreign_assign
# why: item assignment on a result object
await goto_home()
stores = await list_stores(section='Best near you')
stores["items"] = []
result = len(stores.items)
