# expect: stopped
# class: resources
# why: max() over lists that compare equal for a million items each
x = [0] * 10**6
x2 = list(x)
result = len(max([x, x2] * 500000))
