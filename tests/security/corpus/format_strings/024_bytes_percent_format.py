# expect: stopped
# class: format_strings
# why: bytes %-formatting with a huge width
result = len(b"%999999999s" % b"x")
