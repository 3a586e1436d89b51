# expect: reject
# class: lookalikes
# why: fullwidth gi_frame attribute
g = (x for x in [1])
result = str(g.ｇｉ_ｆｒａｍｅ)
