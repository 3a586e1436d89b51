# expect: stopped
# class: crash_inputs
# why: comparing two lists nested 500,000 deep recurses in C
a = []
b = []
for i in range(500000):
    a = [a]
    b = [b]
result = a == b
