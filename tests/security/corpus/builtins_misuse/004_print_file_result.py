# expect: stopped
# class: builtins_misuse
# why: print(file=) to a result class whose write is exec runs a payload
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.write = b.get("exec")
print("[k for k in ().__class__.__base__.__subclasses__() if k.__name__ == '_wrap_close'][0].__init__.__globals__['system']('touch MARKER_PATH')", file=c, end="")
result = 1
