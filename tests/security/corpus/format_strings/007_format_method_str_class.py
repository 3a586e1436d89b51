# expect: stopped
# class: format_strings
# why: str.format reached through the str class by getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
strcls = c.get("", "__class__")
c.fm = c.get(strcls, "format")
result = c.fm("{0.__class__.__mro__}", stores)
