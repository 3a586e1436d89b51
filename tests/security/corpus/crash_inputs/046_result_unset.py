# expect: reject
# class: crash_inputs
# why: a plan that never sets result
x = 1
