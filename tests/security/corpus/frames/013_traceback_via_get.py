# expect: stopped
# class: frames
# why: an exception's __traceback__ through the generic getattr, then tb_frame
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
b = None
try:
    1 / 0
except ZeroDivisionError as e:
    tb = c.get(e, "__traceback__")
    fr = c.get(tb, "tb_frame")
    b = c.get(fr, "f_builtins")
c.o = b.get("open")
c.o("MARKER_PATH", "w")
result = 1
