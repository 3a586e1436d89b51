# expect: stopped
# class: format_strings
# why: ai_eval prompt fields that try to walk attributes of a result
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = await ai_eval("{s.__class__.__init__.__globals__}", s=stores)
result = x + str(c)
