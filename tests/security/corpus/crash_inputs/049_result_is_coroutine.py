# expect: reject
# class: crash_inputs
# why: the result is an un-awaited coroutine
result = goto_home()
