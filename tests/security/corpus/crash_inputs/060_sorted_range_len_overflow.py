# expect: stopped
# class: crash_inputs
# why: sorted(range(10**30)): the guard's size check itself meets OverflowError
result = sorted(range(10**30))[0]
