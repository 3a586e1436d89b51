# expect: stopped
# class: unicode_escapes
# why: form feeds and bare carriage returns in the source around a dunder get
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")result = str(c)
