# expect: stopped
# class: getattr_disguise
# why: sorted(key=stores.get) over dunder names
await goto_home()
stores = await list_stores(section='Best near you')
x = sorted(["__module__", "__doc__"], key=stores.get)
result = x
