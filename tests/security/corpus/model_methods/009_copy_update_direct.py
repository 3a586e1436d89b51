# expect: reject
# class: model_methods
# why: deprecated copy(update=) replaces fields with anything
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.copy(update={"items": stores})
result = str(x)
