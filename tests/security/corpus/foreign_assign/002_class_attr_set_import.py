# expect: stopped
# class: foreign_assign
# why: assign __import__ onto a result class and call it
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.i = b.get("__import__")
result = c.i("os").environ.get("CANARY_NAME")
