# expect: stopped
# class: crash_inputs
# why: float() of a 100,000-bit integer raises OverflowError
x = int("1" * 100000, 2)
result = float(x)
