# expect: stopped
# class: unicode_escapes
# why: bidi controls inside a string that names a dunder
await goto_home()
stores = await list_stores(section='Best near you')
k = "⁧__class__⁩"[1:-1]
result = str(stores.get(k))
