# expect: stopped
# class: crash_inputs
# why: str() of a 100,000-digit integer
result = str(10**100000)
