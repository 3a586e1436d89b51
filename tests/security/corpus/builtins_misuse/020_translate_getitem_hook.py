# expect: stopped
# class: builtins_misuse
# why: str.translate calls __getitem__ of any mapping (a result's get)
await goto_home()
stores = await list_stores(section='Best near you')
result = "__class__".translate(stores)
