# expect: stopped
# class: resources
# why: 'a'.ljust(10**10)
result = len("a".ljust(10**10))
