# expect: stopped
# class: frames
# why: add_note on an exception that is then raised as the plan's error
result = 0
e = ValueError("x")
e.add_note("y" * 10)
raise e
