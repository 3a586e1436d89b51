# expect: reject
# class: format_strings
# why: str.format walks attributes: '{0.__class__}'
await goto_home()
stores = await list_stores(section='Best near you')
result = "{0.__class__}".format(stores)
