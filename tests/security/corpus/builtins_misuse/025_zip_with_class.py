# expect: stopped
# class: builtins_misuse
# why: zip and enumerate over a class object fetched by get
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
result = str(list(enumerate(c.get(c, "__mro__"))))
