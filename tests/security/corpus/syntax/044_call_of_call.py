# expect: reject
# class: syntax
# why: calling the result of a call
x = dict(a=print)
result = x.get("a")("hi")
