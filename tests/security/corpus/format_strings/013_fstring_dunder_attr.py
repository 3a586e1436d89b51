# expect: reject
# class: format_strings
# why: an f-string field with a dunder attribute
await goto_home()
stores = await list_stores(section='Best near you')
result = f"{stores.__class__}"
