# expect: ok
# class: crash_inputs
# why: terminal escape sequences in the result come back as data
# result: '\x1b[2J\x1b]0;pwned\x07\r\x08'
result = "\x1b[2J\x1b]0;pwned\x07\r\x08"
