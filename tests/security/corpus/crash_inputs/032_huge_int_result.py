# expect: stopped
# class: crash_inputs
# why: a 100,000-digit integer as the result
result = 10**100000
