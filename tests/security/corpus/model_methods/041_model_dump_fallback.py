# expect: stopped
# class: model_methods
# why: model_dump(fallback=) is a callable hook chosen by the plan
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
y = c.construct(items=b)
x = y.model_dump(mode="json", fallback=b.get("repr"))
result = str(x)
