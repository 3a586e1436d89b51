# expect: stopped
# class: resources
# why: str() of a list nested 100000 deep
a = []
for i in range(100000):
    a = [a]
result = str(a)
