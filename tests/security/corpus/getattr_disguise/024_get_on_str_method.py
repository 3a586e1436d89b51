# expect: stopped
# class: getattr_disguise
# why: getattr of a str method's __self__ and __objclass__
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
m = "abc".upper
result = str(c.get(m, "__self__"))
