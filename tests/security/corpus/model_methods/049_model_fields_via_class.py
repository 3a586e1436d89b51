# expect: stopped
# class: model_methods
# why: model_fields read on the class: FieldInfo objects and annotation types
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
f = c.model_fields["items"]
result = str(f.annotation)
