# expect: stopped
# class: getattr_disguise
# why: a result whose field is named like a method: calling the field
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.items())
