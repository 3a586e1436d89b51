# expect: reject
# class: syntax
# why: a lambda capturing a result in a default
await goto_home()
stores = await list_stores(section='Best near you')
f = lambda s=stores: s
result = 1
