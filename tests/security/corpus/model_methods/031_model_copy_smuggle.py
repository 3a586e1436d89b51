# expect: reject
# class: model_methods
# why: model_copy(update=) puts a class object into a result
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = stores.model_copy(update={"items": c})
result = str(x.items)
