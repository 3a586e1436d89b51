# expect: stopped
# class: unicode_escapes
# why: a rot13-encoded dunder decoded at run time
await goto_home()
stores = await list_stores(section='Best near you')
k = "__pynff__".encode("rot13") if False else "__pynff__"
result = str(stores.get(k.translate({112: "c", 121: "l", 110: "a", 102: "s"})))
