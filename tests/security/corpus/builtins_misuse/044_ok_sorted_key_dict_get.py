# expect: ok
# class: builtins_misuse
# why: sorted/max with key=dict.get, as the planner's own prompt does
# result: 'Stonemill Matcha'
await goto_home()
stores = await list_stores(section='Best near you')
scores = {s.name: s.rating for s in stores.items[:3]}
result = max(scores, key=scores.get)
