# expect: stopped
# class: format_strings
# why: str.format as a sort key: key=' {0.__class__}'.format
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
f = c.get("{0.__class__.__init__.__globals__[__builtins__]}", "format")
result = max([stores], key=f)
