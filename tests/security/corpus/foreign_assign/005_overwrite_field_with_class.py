# expect: stopped
# class: foreign_assign
# why: assign a class object to a declared field
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
stores.items = c
result = str(stores.items)
