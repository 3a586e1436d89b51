# expect: stopped
# class: format_strings
# why: %-formatting width bomb
result = len("%999999999d" % 1)
