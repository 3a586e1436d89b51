# expect: ok
# class: model_methods
# why: list.copy on a plain list built from a result
# result: 8
await goto_home()
stores = await list_stores(section='Best near you')
names = [s.name for s in stores.items]
c2 = names.copy()
result = len(c2)
