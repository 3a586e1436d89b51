# expect: stopped
# class: builtins_misuse
# why: the type builtin reached through getattr of a class's class
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
meta = c.get(c, "__class__")
result = str(meta)
