# expect: stopped
# class: resources
# why: list.sort(key=other.append) computes every key first: a million C-level appends per step
xs = list(range(10**6))
ys = []
for i in range(1000):
    try:
        xs.sort(key=ys.append)
    except TypeError:
        pass
result = len(ys)
