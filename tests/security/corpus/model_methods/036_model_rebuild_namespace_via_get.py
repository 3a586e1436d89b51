# expect: stopped
# class: model_methods
# why: model_rebuild reached by get() with a types namespace to evaluate
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
c.rb = stores.get("model_rebuild")
c.rb(force=True, _types_namespace={"x": 1})
result = 1
