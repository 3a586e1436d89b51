# expect: stopped
# class: model_methods
# why: model_json_schema(schema_generator=exec) calls a builtin the plan chose
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
x = c.model_json_schema(schema_generator=b.get("exec"))
result = str(x)
