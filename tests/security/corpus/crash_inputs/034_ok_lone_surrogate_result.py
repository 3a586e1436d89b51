# expect: ok
# class: crash_inputs
# why: a lone surrogate in the result comes back (as it is or replaced), no traceback
# result: '\ud800'
result = "\ud800"
