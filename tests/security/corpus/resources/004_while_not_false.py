# expect: stopped
# class: resources
# why: while not False
x = False
while not x:
    x = x and True
result = 1
