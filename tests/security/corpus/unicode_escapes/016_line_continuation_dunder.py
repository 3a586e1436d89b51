# expect: reject
# class: unicode_escapes
# why: a backslash line continuation in the middle of a dunder attribute
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.\
__class__)
