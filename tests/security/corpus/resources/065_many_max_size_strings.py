# expect: stopped
# class: resources
# why: two hundred strings just under the size bound: 2 GB in small steps, past the memory bound
s = "x" * (10**7 - 10)
keep = [s + str(i) for i in range(200)]
result = len(keep)
