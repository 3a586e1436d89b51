# expect: stopped
# class: unicode_escapes
# why: a raw string is still a dunder name
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get(r"__class__")
result = str(c)
