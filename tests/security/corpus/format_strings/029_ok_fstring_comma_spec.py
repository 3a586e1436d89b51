# expect: ok
# class: format_strings
# why: f-string with grouping and sign specs
# result: '1,234,567|-5|25%'
result = f"{1234567:,}|{-5:+d}|{0.25:.0%}"
