# expect: reject
# class: getattr_disguise
# why: a constant dunder subscript is refused statically
await goto_home()
stores = await list_stores(section='Best near you')
c = stores["__class__"]
result = str(c)
