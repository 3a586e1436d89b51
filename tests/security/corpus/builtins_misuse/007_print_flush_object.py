# expect: stopped
# class: builtins_misuse
# why: print(flush=True) to an object with a flush attribute set by the plan
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.write = c.get
c.flush = b.get("breakpoint")
print("x", file=c, flush=True)
result = 1
