# expect: stopped
# class: unicode_escapes
# why: bytes.fromhex of a dunder name
await goto_home()
stores = await list_stores(section='Best near you')
k = "".join([chr_ for chr_ in b"".fromhex("5f5f636c6173735f5f").decode()])
result = str(stores.get(k))
