# expect: stopped
# class: format_strings
# why: str.format fetched by generic getattr and called from a class attribute
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
c.fmt = c.get("{0.__class__.__init__.__globals__}", "format")
result = c.fmt(stores)
