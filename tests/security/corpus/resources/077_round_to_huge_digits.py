# expect: ok
# class: resources
# why: round(n, -10**8) makes Python compute 10**(10**8) first; any int rounds to 0 there
# result: [0, 12300]
result = [round(5, -10 ** 8), round(12345, -2)]
