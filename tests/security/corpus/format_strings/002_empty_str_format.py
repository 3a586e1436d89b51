# expect: reject
# class: format_strings
# why: ''.format reached as an attribute
await goto_home()
stores = await list_stores(section='Best near you')
f = "".format
result = f
