# expect: reject
# class: model_methods
# why: __deepcopy__ as an attribute
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.__deepcopy__({})
result = 1
