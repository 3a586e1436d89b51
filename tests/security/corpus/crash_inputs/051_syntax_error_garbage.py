# expect: reject
# class: crash_inputs
# why: plain garbage
result = = 1 )(
