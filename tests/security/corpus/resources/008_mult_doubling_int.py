# expect: stopped
# class: resources
# why: an integer squared in a loop
x = 3
for i in range(40):
    x = x * x
result = x > 0
