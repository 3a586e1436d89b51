# expect: stopped
# class: builtins_misuse
# why: list() over a class's __mro__ fetched by getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
result = str(list(c.get(c, "__mro__")))
