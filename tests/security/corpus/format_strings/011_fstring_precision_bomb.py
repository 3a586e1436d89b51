# expect: stopped
# class: format_strings
# why: a float precision bomb in an f-string
result = len(f"{1.5:.999999999f}")
