# expect: reject
# class: crash_inputs
# why: an empty plan

