# expect: reject
# class: builtins_misuse
# why: type(x) reaches the class
await goto_home()
stores = await list_stores(section='Best near you')
result = str(type(stores))
