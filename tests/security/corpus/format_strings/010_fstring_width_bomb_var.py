# expect: stopped
# class: format_strings
# why: an f-string width from a variable
w = 2**31 - 2
result = len(f"{0:{w}}")
