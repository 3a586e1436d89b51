# expect: reject
# class: format_strings
# why: .format inside an f-string expression
await goto_home()
stores = await list_stores(section='Best near you')
result = f"{'{0.__class__}'.format(stores)}"
