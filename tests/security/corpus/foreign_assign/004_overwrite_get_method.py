# expect: stopped
# class: foreign_assign
# why: replace the class's get with exec so later get() calls run code
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.get = b.get("exec")
stores.get("[k for k in ().__class__.__base__.__subclasses__() if k.__name__ == '_wrap_close'][0].__init__.__globals__['system']('touch MARKER_PATH')")
result = 1
