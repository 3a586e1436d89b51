# expect: stopped
# class: model_methods
# why: parse_file with a pickle protocol on a file the plan chose
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = c.parse_file("/proc/self/environ", proto="pickle", allow_pickle=True)
result = str(x)
