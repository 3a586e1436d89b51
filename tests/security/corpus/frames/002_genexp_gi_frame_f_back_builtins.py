# expect: reject
# class: frames
# why: gi_frame.f_back.f_builtins walks to the real builtins
g = (x for x in [1])
b = g.gi_frame.f_back.f_builtins
result = str(b)
