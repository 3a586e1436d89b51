# expect: stopped
# class: builtins_misuse
# why: sum with a start value that is a result
await goto_home()
stores = await list_stores(section='Best near you')
result = sum([stores], stores)
