# expect: stopped
# class: model_methods
# why: parse_file on /proc/self/environ puts the environment in an error text
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = c.parse_file("/proc/self/environ", content_type="application/json")
result = str(x)
