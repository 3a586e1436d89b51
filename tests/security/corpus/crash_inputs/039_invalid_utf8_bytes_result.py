# expect: stopped
# class: crash_inputs
# why: invalid UTF-8 as a bytes result
result = b"\xff\xfe\xc3\x28"
