# expect: stopped
# class: model_methods
# why: model_dump_json through the class with a huge indent
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = c.model_dump_json(stores, indent=10**8)
result = len(x)
