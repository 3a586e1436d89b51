# expect: ok
# class: resources
# why: round(1, -10**9) makes Python compute 10**(10**9) inside C first; the guard answers 0 at once, as Python would
# result: 0
result = round(1, -10**9)
