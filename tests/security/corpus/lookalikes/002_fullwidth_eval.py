# expect: reject
# class: lookalikes
# why: fullwidth ｅｖａｌ
result = ｅｖａｌ("1")
