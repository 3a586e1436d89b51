# expect: stopped
# class: crash_inputs
# why: the result is a tool function
result = goto_home
