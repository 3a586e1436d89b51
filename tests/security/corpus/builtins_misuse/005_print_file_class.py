# expect: stopped
# class: builtins_misuse
# why: print(file=) to an object whose write attribute is a builtin
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.write = b.get("print")
print("x", file=c)
result = 1
