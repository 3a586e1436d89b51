# expect: stopped
# class: format_strings
# why: an f-string width bomb: f'{1:>999999999}'
result = len(f"{1:>999999999}")
