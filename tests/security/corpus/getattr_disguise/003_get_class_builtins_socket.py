# expect: stopped
# class: getattr_disguise
# why: generic getattr to builtins, then a socket to the listener
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.i = b.get("__import__")
c.i("socket").create_connection(("127.0.0.1", LISTENER_PORT))
result = "connected"
