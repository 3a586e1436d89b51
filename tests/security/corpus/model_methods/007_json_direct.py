# expect: reject
# class: model_methods
# why: deprecated json() takes encoder callables
await goto_home()
stores = await list_stores(section='Best near you')
result = stores.json(encoder=stores.get)
