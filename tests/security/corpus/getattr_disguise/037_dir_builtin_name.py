# expect: reject
# class: getattr_disguise
# why: dir may not be mentioned
await goto_home()
stores = await list_stores(section='Best near you')
result = dir(stores)
