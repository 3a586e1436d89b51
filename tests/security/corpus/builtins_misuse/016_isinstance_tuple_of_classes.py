# expect: stopped
# class: builtins_misuse
# why: isinstance with a class fetched from a result
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
result = isinstance(stores, c) and str(c)
