# expect: ok
# class: format_strings
# why: f-string with !r of a plain string
# result: "'stonemill-matcha'"
await goto_home()
stores = await list_stores(section='Best near you')
result = f"{stores.items[0].slug!r}"
