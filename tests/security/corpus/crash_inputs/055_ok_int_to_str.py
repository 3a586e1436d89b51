# expect: ok
# class: crash_inputs
# why: str() of a 100-digit integer
# result: 100
result = len(str(10**99))
