# expect: reject
# class: model_methods
# why: __class__ as an attribute
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.__class__)
