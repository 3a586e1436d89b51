# expect: reject
# class: model_methods
# why: deprecated dict() on a result
await goto_home()
stores = await list_stores(section='Best near you')
result = stores.dict()
