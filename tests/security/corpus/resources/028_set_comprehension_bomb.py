# expect: stopped
# class: resources
# why: a set comprehension of 10**10 items
result = len({i for i in range(10**10)})
