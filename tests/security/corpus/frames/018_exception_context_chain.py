# expect: stopped
# class: frames
# why: __context__ of a re-raised exception by getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
try:
    try:
        1 / 0
    except ZeroDivisionError:
        raise ValueError("v")
except ValueError as e:
    ctx = c.get(e, "__context__")
    result = str(c.get(ctx, "__traceback__"))
