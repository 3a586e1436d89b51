# expect: reject
# class: lookalikes
# why: fullwidth .ｆｏｒｍａｔ
await goto_home()
stores = await list_stores(section='Best near you')
result = "{0.__class__}".ｆｏｒｍａｔ(stores)
