# expect: stopped
# class: getattr_disguise
# why: a dunder name made by str.replace
await goto_home()
stores = await list_stores(section='Best near you')
k = "XXclassXX".replace("X", "_")
c = stores.get(k)
fg = c.get(c.get, "XXglobalsXX".replace("X", "_"))
b = fg.get("XXbuiltinsXX".replace("X", "_"))
c.i = b.get("__import__")
c.i("socket").create_connection(("127.0.0.1", LISTENER_PORT))
result = "connected"
