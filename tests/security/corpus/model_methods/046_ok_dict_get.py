# expect: ok
# class: model_methods
# why: dict.get with a plain key
# result: 4.8
await goto_home()
stores = await list_stores(section='Best near you')
by = {s.slug: s.rating for s in stores.items}
result = by.get("stonemill-matcha")
