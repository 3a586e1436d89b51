# expect: ok
# class: lookalikes
# why: fullwidth letters inside a string literal are only text
# result: 'ｅｘｅｃ'
result = "ｅｘｅｃ"
