# expect: stopped
# class: crash_inputs
# why: 2.0 ** 10000 raises OverflowError, which must become a plan error
result = 2.0 ** 10000
