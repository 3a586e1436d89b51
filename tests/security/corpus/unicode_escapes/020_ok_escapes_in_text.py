# expect: ok
# class: unicode_escapes
# why: escapes in plain text
# result: 'tab\thereé•'
result = "tab\there\u00e9\N{BULLET}"
