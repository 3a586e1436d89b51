# expect: stopped
# class: model_methods
# why: construct via the class: an unvalidated result that holds the class itself
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = c.construct(items=c)
result = str(x.items)
