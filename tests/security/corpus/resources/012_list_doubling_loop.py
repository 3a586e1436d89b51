# expect: stopped
# class: resources
# why: a list doubled in a loop
xs = [1]
for i in range(64):
    xs = xs + xs
result = len(xs)
