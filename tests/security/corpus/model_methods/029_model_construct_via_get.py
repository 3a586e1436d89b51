# expect: stopped
# class: model_methods
# why: model_construct fetched by get() and called as a class attribute
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
c.mc = stores.get("model_construct")
x = c.mc(items=c)
result = str(x.items)
