# expect: stopped
# class: unicode_escapes
# why: \N{LOW LINE} escapes spelling a dunder
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("\N{LOW LINE}\N{LOW LINE}class\N{LOW LINE}\N{LOW LINE}")
fg = c.get(c.get, "\N{LOW LINE}\N{LOW LINE}globals__")
b = fg.get("__builtins__")
c.o = b.get("open")
c.o("MARKER_PATH", "w").write("x")
result = "written"
