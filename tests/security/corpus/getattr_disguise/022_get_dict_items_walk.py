# expect: stopped
# class: getattr_disguise
# why: a vars()-like walk over __dict__ items to find a function with globals
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
d = c.get(c, "__dict__")
found = None
for k in d:
    v = d[k]
    gl = c.get(v, "__globals__", None)
    if gl is not None:
        found = gl
b = found.get("__builtins__")
c.i = b.get("__import__")
result = c.i("os").environ.get("CANARY_NAME")
