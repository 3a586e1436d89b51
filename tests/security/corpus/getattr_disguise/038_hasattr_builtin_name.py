# expect: reject
# class: getattr_disguise
# why: hasattr may not be mentioned
await goto_home()
stores = await list_stores(section='Best near you')
result = hasattr(stores, "__class__")
