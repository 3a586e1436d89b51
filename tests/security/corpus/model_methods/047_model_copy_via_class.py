# expect: stopped
# class: model_methods
# why: model_copy called through the class with the result as self
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = c.model_copy(stores, update={"items": c})
result = str(x.items)
