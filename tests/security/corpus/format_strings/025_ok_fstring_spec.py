# expect: ok
# class: format_strings
# why: f-string with a float spec
# result: '4.80'
await goto_home()
stores = await list_stores(section='Best near you')
r = stores.items[0].rating
result = f"{r:.2f}"
