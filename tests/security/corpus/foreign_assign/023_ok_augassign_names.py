# expect: ok
# class: foreign_assign
# why: augmented assignment on names
# result: True
await goto_home()
stores = await list_stores(section='Best near you')
total = 0
for s in stores.items:
    total += s.review_count
result = total > 0
