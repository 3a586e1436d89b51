# expect: stopped
# class: crash_inputs
# why: float division and modulo by zero
x = 1.0 % 0.0
result = x
