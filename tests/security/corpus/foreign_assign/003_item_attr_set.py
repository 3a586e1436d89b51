# expect: reject
# class: foreign_assign
# why: assign a function onto a list item and call it
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
s = stores.items[0]
s.f = b.get("__import__")
s.f("socket").create_connection(("127.0.0.1", LISTENER_PORT))
result = 1
