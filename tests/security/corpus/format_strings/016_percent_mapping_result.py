# expect: stopped
# class: format_strings
# why: %-formatting with a result object as the mapping
await goto_home()
stores = await list_stores(section='Best near you')
result = "%(items)s and %(__dict__)s" % stores
