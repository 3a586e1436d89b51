# expect: ok
# class: crash_inputs
# why: a sum of 40 terms
# result: 40
result = 1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1
