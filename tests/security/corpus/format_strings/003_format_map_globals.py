# expect: reject
# class: format_strings
# why: format_map with a mapping
await goto_home()
stores = await list_stores(section='Best near you')
result = "{x}".format_map({"x": 1})
