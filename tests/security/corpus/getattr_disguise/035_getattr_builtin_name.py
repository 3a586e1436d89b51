# expect: reject
# class: getattr_disguise
# why: getattr itself may not be mentioned
await goto_home()
stores = await list_stores(section='Best near you')
result = str(getattr(stores, "__class__"))
