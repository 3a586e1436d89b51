# expect: stopped
# class: crash_inputs
# why: len(range(10**30)) raises OverflowError (also inside the guard's size checks)
result = len(range(10**30))
