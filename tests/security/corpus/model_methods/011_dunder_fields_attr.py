# expect: reject
# class: model_methods
# why: __fields__ as an attribute
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.__fields__)
