# expect: reject
# class: model_methods
# why: from_orm reads attributes of any object
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.from_orm(stores)
result = str(x)
