# expect: stopped
# class: builtins_misuse
# why: min(key=__import__) imports modules
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
x = min(["os", "socket"], key=b.get("__import__"))
result = x
