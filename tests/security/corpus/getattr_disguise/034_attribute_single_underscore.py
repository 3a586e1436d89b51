# expect: reject
# class: getattr_disguise
# why: a private attribute (_name)
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores._abc_impl)
