# expect: stopped
# class: resources
# why: round(1, -10**9) computes 10**(10**9) inside C, past the integer bound
result = round(1, -10**9)
