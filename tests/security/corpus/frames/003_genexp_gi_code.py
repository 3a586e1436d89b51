# expect: reject
# class: frames
# why: gi_code reaches a code object
g = (x for x in [1])
result = str(g.gi_code.co_consts)
