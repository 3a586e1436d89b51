# expect: stopped
# class: format_strings
# why: a zero-padding width bomb
result = len(f"{7:0999999999d}")
