# expect: stopped
# class: format_strings
# why: %-formatting with a * width from a variable
result = len("%*d" % (10**9, 1))
