# expect: stopped
# class: model_methods
# why: model_validate_json fetched by get() and stored on a result class
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
c.vj = stores.get("model_validate_json")
x = c.vj('{"items": [], "q": 1}')
result = str(x.get("__pydantic_extra__"))
