# expect: ok
# class: lookalikes
# why: a Greek variable name
# result: 4
π = 3
result = π + 1
