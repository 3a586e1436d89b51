# expect: stopped
# class: unicode_escapes
# why: a subscript key that is an f-string
await goto_home()
stores = await list_stores(section='Best near you')
u = "__"
c = stores[f"{u}class{u}"]
result = str(c)
