# expect: ok
# class: format_strings
# why: f-string with a small width
# result: '    7|ab  |'
result = f"{7:>5}|{'ab':<4}|"
