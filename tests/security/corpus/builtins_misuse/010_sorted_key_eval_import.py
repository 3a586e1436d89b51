# expect: stopped
# class: builtins_misuse
# why: sorted(key=eval) on an expression using real builtins
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
ev = b.get("eval")
x = sorted(["1", "2"], key=ev)
result = x
