# expect: stopped
# class: resources
# why: a list extended by itself in a loop
xs = [1]
while True:
    xs.extend(xs)
result = len(xs)
