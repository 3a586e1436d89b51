# expect: stopped
# class: format_strings
# why: %-formatting with a mapping whose key is a dunder name
await goto_home()
stores = await list_stores(section='Best near you')
result = "%(__class__)s" % stores
