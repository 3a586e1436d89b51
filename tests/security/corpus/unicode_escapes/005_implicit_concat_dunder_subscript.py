# expect: reject
# class: unicode_escapes
# why: implicit string concatenation: '__' '__class__'[2:]
await goto_home()
stores = await list_stores(section='Best near you')
c = stores["_" "_class__"]
result = str(c)
