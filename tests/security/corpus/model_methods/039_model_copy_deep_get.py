# expect: reject
# class: model_methods
# why: model_copy then get() of a dunder on the copy
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.model_copy(deep=True)
result = str(x.get("__dict__"))
