# expect: stopped
# class: getattr_disguise
# why: max(key=stores.get) over dunder names calls get on each
await goto_home()
stores = await list_stores(section='Best near you')
x = max(["__class__", "__dict__"], key=stores.get)
result = x
