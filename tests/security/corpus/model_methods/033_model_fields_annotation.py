# expect: reject
# class: model_methods
# why: model_fields hands out FieldInfo objects and their annotation types
await goto_home()
stores = await list_stores(section='Best near you')
f = stores.model_fields["items"]
result = str(f.annotation)
