# expect: ok
# class: model_methods
# why: plain field reads on a result
# result: 'Stonemill Matcha'
await goto_home()
stores = await list_stores(section='Best near you')
result = stores.items[0].name
