# expect: ok
# class: foreign_assign
# why: item assignment on a plain dict
# result: {'stonemill-matcha': 4.8, 'taqueria-el-sol': 4.7}
await goto_home()
stores = await list_stores(section='Best near you')
d = {}
for s in stores.items[:2]:
    d[s.slug] = s.rating
result = d
