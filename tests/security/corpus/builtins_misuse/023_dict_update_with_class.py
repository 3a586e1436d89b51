# expect: stopped
# class: builtins_misuse
# why: dict.update with a class object's namespace fetched by getattr
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
d = {}
d.update(c.get(c, "__dict__"))
result = sorted(d)
