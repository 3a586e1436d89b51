# expect: reject
# class: format_strings
# why: format() is not a plan builtin
await goto_home()
stores = await list_stores(section='Best near you')
result = format(stores, "")
