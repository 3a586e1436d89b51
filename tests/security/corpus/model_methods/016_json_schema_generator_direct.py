# expect: reject
# class: model_methods
# why: model_json_schema takes a schema_generator class to call
await goto_home()
stores = await list_stores(section='Best near you')
s = stores.items[0]
result = s.model_json_schema(schema_generator=stores.get)
