# expect: ok
# class: getattr_disguise
# why: slicing a result list is benign
# result: 3
await goto_home()
stores = await list_stores(section='Best near you')
result = len(stores.items[:3])
