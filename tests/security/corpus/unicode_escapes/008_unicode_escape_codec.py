# expect: stopped
# class: unicode_escapes
# why: the unicode_escape codec turns text into a dunder
await goto_home()
stores = await list_stores(section='Best near you')
k = b"\\x5f\\x5fclass\\x5f\\x5f".decode("unicode_escape")
result = str(stores.get(k))
