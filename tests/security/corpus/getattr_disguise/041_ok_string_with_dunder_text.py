# expect: ok
# class: getattr_disguise
# why: a string that mentions __class__ is only text
# result: 'the __class__ of stonemill-matcha'
await goto_home()
stores = await list_stores(section='Best near you')
note = "the __class__ of " + stores.items[0].slug
result = note
