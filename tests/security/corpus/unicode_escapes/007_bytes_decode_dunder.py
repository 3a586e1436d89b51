# expect: stopped
# class: unicode_escapes
# why: a dunder name decoded from bytes
await goto_home()
stores = await list_stores(section='Best near you')
k = b"__class__".decode()
result = str(stores.get(k))
