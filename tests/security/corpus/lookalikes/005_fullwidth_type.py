# expect: reject
# class: lookalikes
# why: fullwidth ｔｙｐｅ
result = str(ｔｙｐｅ(1))
