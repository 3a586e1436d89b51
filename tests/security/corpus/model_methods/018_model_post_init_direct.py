# expect: reject
# class: model_methods
# why: model_post_init on a result
await goto_home()
stores = await list_stores(section='Best near you')
stores.model_post_init(None)
result = 1
