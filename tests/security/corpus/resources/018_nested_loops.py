# expect: stopped
# class: resources
# why: three nested loops of 10**4
n = 0
for a in range(10**4):
    for b in range(10**4):
        for c in range(10**4):
            n += 1
result = n
