# expect: reject
# class: model_methods
# why: model_fields_set is not a declared field
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.model_fields_set)
