# expect: ok
# class: getattr_disguise
# why: a dict with a key that merely contains underscores
# result: 3
await goto_home()
stores = await list_stores(section='Best near you')
d = {"a__b": 1, "_x": 2}
k = "a__b"
result = d[k] + d["_x"]
