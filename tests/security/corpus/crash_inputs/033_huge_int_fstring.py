# expect: stopped
# class: crash_inputs
# why: an f-string of a 50,000-digit integer
result = f"{7**60000}"
