# expect: reject
# class: model_methods
# why: __pydantic_validator__ reaches pydantic-core internals
await goto_home()
stores = await list_stores(section='Best near you')
v = stores.__pydantic_validator__
result = str(v)
