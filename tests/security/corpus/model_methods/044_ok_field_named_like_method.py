# expect: ok
# class: model_methods
# why: a dict key named 'json' and 'schema' is plain data
# result: 6
await goto_home()
stores = await list_stores(section='Best near you')
d = {"json": 1, "schema": 2, "copy": 3}
result = d["json"] + d["schema"] + d["copy"]
