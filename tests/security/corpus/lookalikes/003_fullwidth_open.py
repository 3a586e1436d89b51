# expect: reject
# class: lookalikes
# why: fullwidth ｏｐｅｎ
ｏｐｅｎ("MARKER_PATH", "w")
result = 1
