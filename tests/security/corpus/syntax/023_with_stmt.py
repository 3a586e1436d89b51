# expect: reject
# class: syntax
# why: with
with open("MARKER_PATH", "w") as f:
    pass
result = 1
