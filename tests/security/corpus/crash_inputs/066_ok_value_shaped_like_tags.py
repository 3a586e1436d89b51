# expect: ok
# class: crash_inputs
# why: a result dict whose keys are the wire tags must come back as that dict, not as a decoded int or set
# result: [{"$i": "ff"}, {"$s": [1]}, {"$d": [[1, 2]]}, ["$t", 1]]
result = [{"$i": "ff"}, {"$s": [1]}, {"$d": [[1, 2]]}, ["$t", 1]]
