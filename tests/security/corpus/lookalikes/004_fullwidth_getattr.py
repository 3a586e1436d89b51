# expect: reject
# class: lookalikes
# why: fullwidth ｇｅｔａｔｔｒ
await goto_home()
stores = await list_stores(section='Best near you')
result = str(ｇｅｔａｔｔｒ(stores, "items"))
