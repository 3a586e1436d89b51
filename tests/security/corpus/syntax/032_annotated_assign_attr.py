# expect: reject
# class: syntax
# why: an annotated assignment to an attribute
await goto_home()
stores = await list_stores(section='Best near you')
stores.x: int = 1
result = 1
