# expect: reject
# class: lookalikes
# why: a superscript letter in a forbidden name (ᵉval)
result = ᵉval("1")
