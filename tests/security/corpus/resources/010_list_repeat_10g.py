# expect: stopped
# class: resources
# why: [0] * 10**10
x = [0] * 10**10
result = len(x)
