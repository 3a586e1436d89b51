# expect: reject
# class: model_methods
# why: model_rebuild evaluates annotation strings; forbidden by name
await goto_home()
stores = await list_stores(section='Best near you')
stores.model_rebuild(force=True)
result = 1
