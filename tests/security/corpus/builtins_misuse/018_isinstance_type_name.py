# expect: reject
# class: builtins_misuse
# why: isinstance(x, type) mentions type
await goto_home()
stores = await list_stores(section='Best near you')
result = isinstance(stores, type)
