# expect: stopped
# class: unicode_escapes
# why: a dunder name written with \x5f escapes
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("\x5f\x5fclass\x5f\x5f")
result = str(c)
