# expect: ok
# class: lookalikes
# why: an accented variable name
# result: 6
café = 3
result = café * 2
