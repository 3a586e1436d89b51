# expect: ok
# class: frames
# why: any() over a generator of result items
# result: True
await goto_home()
stores = await list_stores(section='Best near you')
result = any(s.rating > 4.5 for s in stores.items)
