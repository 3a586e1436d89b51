# expect: reject
# class: model_methods
# why: construct builds a result without validation, smuggling any object in
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.construct(items=stores)
result = str(x)
