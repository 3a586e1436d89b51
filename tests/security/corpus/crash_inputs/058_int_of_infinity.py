# expect: stopped
# class: crash_inputs
# why: int(float('inf')) raises OverflowError
result = int(float("inf"))
