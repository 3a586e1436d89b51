# expect: reject
# class: unicode_escapes
# why: a constant subscript with \u005f escapes reads as '__class__'
await goto_home()
stores = await list_stores(section='Best near you')
c = stores["\u005f\u005fclass\u005f\u005f"]
result = str(c)
