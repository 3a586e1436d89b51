# expect: stopped
# class: format_strings
# why: f'{x!r:{y}}' with a nested width from a result
await goto_home()
stores = await list_stores(section='Best near you')
y = 10**8
result = len(f"{stores.items[0].name!r:{y}}")
