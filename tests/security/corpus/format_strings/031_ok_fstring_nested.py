# expect: ok
# class: format_strings
# why: f-string with a nested width from a small int
# result: '000003'
w = 6
result = f"{3:0{w}d}"
