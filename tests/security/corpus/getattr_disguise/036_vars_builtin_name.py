# expect: reject
# class: getattr_disguise
# why: vars may not be mentioned
await goto_home()
stores = await list_stores(section='Best near you')
result = str(vars(stores))
