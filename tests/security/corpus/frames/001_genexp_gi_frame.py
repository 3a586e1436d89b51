# expect: reject
# class: frames
# why: (x for x in y).gi_frame is forbidden by name
g = (x for x in [1])
result = str(g.gi_frame)
