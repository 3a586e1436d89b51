# expect: reject
# class: model_methods
# why: model_dump_json with a huge indent builds a giant string
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.model_dump_json(indent=10**8)
result = len(x)
