# expect: stopped
# class: resources
# why: a dict growing without bound
d = {}
i = 0
while True:
    d[i] = i
    i += 1
result = len(d)
