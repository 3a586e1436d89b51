# expect: stopped
# class: unicode_escapes
# why: punycode-decoded attribute name
await goto_home()
stores = await list_stores(section='Best near you')
k = b"__class__-".decode("punycode")
result = str(stores.get(k))
