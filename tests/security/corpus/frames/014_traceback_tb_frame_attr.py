# expect: reject
# class: frames
# why: tb_frame by attribute
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
try:
    1 / 0
except ZeroDivisionError as e:
    tb = c.get(e, "__traceback__")
    result = str(tb.tb_frame)
