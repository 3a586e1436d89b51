# expect: stopped
# class: frames
# why: generator send/throw/close methods on a generator expression
g = (x for x in [1, 2])
first = g.send(None)
g.throw(ValueError("x"))
result = first
