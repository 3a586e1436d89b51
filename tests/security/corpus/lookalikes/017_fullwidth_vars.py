# expect: reject
# class: lookalikes
# why: fullwidth ｖａｒｓ
result = str(ｖａｒｓ())
