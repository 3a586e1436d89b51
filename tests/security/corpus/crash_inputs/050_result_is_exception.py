# expect: stopped
# class: crash_inputs
# why: the result is an exception object
result = ValueError("x")
