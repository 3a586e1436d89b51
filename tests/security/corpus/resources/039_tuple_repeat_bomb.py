# expect: stopped
# class: resources
# why: (1,) * 10**10
result = len((1,) * 10**10)
