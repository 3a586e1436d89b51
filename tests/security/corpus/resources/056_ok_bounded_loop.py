# expect: ok
# class: resources
# why: a bounded while loop of 1000 steps
# result: 1000
i = 0
while i < 1000:
    i += 1
result = i
