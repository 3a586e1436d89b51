# expect: stopped
# class: getattr_disguise
# why: dunder getattr inside a comprehension
await goto_home()
stores = await list_stores(section='Best near you')
xs = [s.get("__class__") for s in stores.items]
result = str(xs[0])
