# expect: reject
# class: model_methods
# why: model_validate_json on a result
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.model_validate_json('{"items": []}')
result = str(x)
