# expect: stopped
# class: resources
# why: a dict nested a million deep as the result
d = {}
for i in range(10**6):
    d = {"k": d}
result = d
