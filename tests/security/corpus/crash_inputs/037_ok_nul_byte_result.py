# expect: ok
# class: crash_inputs
# why: NUL bytes in the result come back as they are
# result: 'a\x00b\x00a\x00b\x00a\x00b\x00'
result = "a\x00b\x00" * 3
