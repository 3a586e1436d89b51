# expect: stopped
# class: crash_inputs
# why: a dict that contains itself as the result
d = {}
d["self"] = d
result = d
