# expect: stopped
# class: model_methods
# why: model_validate of a dict that carries a non-data object as an extra field
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = c.model_validate({"items": [], "evil": c})
result = str(x.evil)
