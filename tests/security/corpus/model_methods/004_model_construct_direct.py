# expect: reject
# class: model_methods
# why: model_construct is forbidden by name
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.model_construct(items=[1])
result = str(x)
