# expect: stopped
# class: builtins_misuse
# why: truth test of a class fetched by get
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
result = bool(c) and str(c)
