# expect: stopped
# class: resources
# why: sum of a thousand million-item lists with a list start (quadratic copying)
x = [0] * 10**6
result = len(sum([x] * 1000, []))
