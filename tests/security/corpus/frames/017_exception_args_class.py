# expect: stopped
# class: frames
# why: an exception's args and class through getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
try:
    x = {}["k"]
except KeyError as e:
    k = c.get(e, "__class__")
    c.sc = c.get(k, "__subclasses__")
    result = str(c.sc())
