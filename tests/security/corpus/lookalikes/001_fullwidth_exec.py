# expect: reject
# class: lookalikes
# why: fullwidth ｅｘｅｃ normalizes (NFKC) to exec
ｅｘｅｃ("x = 1")
result = 1
