# expect: ok
# class: builtins_misuse
# why: round with a huge ndigits returns the number unchanged
# result: 3
result = len(str(round(1.5, 10**9)))
