# expect: reject
# class: syntax
# why: an annotated assignment evaluates its annotation
x: print("hi") = 1
result = x
