# expect: reject
# class: crash_inputs
# why: inconsistent tabs and spaces
if True:
	x = 1
        y = 2
result = 1
