# expect: reject
# class: model_methods
# why: schema() exposes the model class machinery
await goto_home()
stores = await list_stores(section='Best near you')
result = stores.schema()
