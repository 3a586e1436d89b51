# expect: stopped
# class: resources
# why: a result nested 500 deep crosses the depth bound where it leaves the plan
a = 1
for i in range(500):
    a = [a]
result = a
