# expect: reject
# class: format_strings
# why: a dunder in a nested format spec
await goto_home()
stores = await list_stores(section='Best near you')
result = f"{1:{stores.__doc__}}"
