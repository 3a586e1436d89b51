# expect: reject
# class: model_methods
# why: calling what get() returns directly is a call of a call
await goto_home()
stores = await list_stores(section='Best near you')
result = stores.get("model_dump")()
