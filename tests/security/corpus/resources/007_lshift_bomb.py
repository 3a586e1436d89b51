# expect: stopped
# class: resources
# why: 1 << 10**10
result = (1 << 10**10) > 0
