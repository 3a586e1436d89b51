# expect: reject
# class: lookalikes
# why: mathematical italic 𝑔𝑙𝑜𝑏𝑎𝑙𝑠
result = str(𝑔𝑙𝑜𝑏𝑎𝑙𝑠())
