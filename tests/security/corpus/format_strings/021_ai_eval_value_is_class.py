# expect: stopped
# class: format_strings
# why: ai_eval handed a class object as a value
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
result = await ai_eval("describe {k}", k=c)
