# expect: stopped
# class: resources
# why: a list comprehension of 10**12 items
result = len([i for i in range(10**12)])
