# expect: stopped
# class: model_methods
# why: pydantic.create_model evaluates a string annotation in os's globals
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.cm = fg.get("create_model")
c.cm("Evil", __module__="os", a=("system('touch MARKER_PATH')", None))
result = 1
