# expect: reject
# class: model_methods
# why: deprecated validate classmethod
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.validate({"items": []})
result = str(x)
