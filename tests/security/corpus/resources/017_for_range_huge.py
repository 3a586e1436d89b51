# expect: stopped
# class: resources
# why: a for loop over range(10**15)
t = 0
for i in range(10**15):
    t += i
result = t
