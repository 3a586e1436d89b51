# expect: reject
# class: lookalikes
# why: fullwidth low lines around class in an attribute name
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.＿＿class＿＿
result = str(x)
