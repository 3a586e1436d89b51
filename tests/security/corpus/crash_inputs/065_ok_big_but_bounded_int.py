# expect: ok
# class: crash_inputs
# why: a 60,000-bit integer is inside the bound
# result: 60001
x = 2 ** 60000
result = x.bit_length()
