# expect: stopped
# class: getattr_disguise
# why: generic getattr to __import__, then subprocess touching the marker
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
fg = c.get(c.get, "__globals__")
b = fg.get("__builtins__")
c.i = b.get("__import__")
c.i("subprocess").run(["touch", "MARKER_PATH"])
result = 1
