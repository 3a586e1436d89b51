# expect: stopped
# class: builtins_misuse
# why: max(key=open) opens files named by the plan
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
x = max(["/proc/self/environ"], key=b.get("open"))
result = x
