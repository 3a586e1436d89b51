# expect: reject
# class: builtins_misuse
# why: open may not be mentioned
open("MARKER_PATH", "w").write("x")
result = 1
