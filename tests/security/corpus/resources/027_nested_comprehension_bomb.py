# expect: stopped
# class: resources
# why: a nested comprehension of 10**8 items
result = len([i * j for i in range(10**4) for j in range(10**4)])
