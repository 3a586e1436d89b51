# expect: stopped
# class: resources
# why: a = [a] in a loop builds a value nested ten million deep
a = []
for i in range(10**7):
    a = [a]
result = a
