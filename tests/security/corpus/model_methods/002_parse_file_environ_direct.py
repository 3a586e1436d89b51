# expect: reject
# class: model_methods
# why: parse_file reads any path, here the process environment
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.parse_file("/proc/self/environ")
result = str(x)
