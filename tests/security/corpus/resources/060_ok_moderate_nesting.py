# expect: ok
# class: resources
# why: a value nested five deep
# result: [[[[[1]]]]]
a = 1
for i in range(5):
    a = [a]
result = a
