# expect: reject
# class: lookalikes
# why: a dunder attribute spelled with fullwidth letters
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.__ｃｌａｓｓ__)
