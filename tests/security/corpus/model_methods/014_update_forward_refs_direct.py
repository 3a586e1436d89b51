# expect: reject
# class: model_methods
# why: update_forward_refs evaluates annotation strings in a namespace
await goto_home()
stores = await list_stores(section='Best near you')
stores.update_forward_refs(x="open")
result = 1
