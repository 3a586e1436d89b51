# expect: reject
# class: getattr_disguise
# why: a dunder attribute written as an attribute
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.__dict__)
