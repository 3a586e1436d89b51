# expect: reject
# class: lookalikes
# why: fullwidth ｂｒｅａｋｐｏｉｎｔ
ｂｒｅａｋｐｏｉｎｔ()
result = 1
