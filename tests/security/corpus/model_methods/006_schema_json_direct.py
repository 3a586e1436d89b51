# expect: reject
# class: model_methods
# why: schema_json() on a result
await goto_home()
stores = await list_stores(section='Best near you')
result = stores.schema_json(indent=2)
