# expect: stopped
# class: resources
# why: sorted(key=d.setdefault) fills a dict with a million keys in C, again and again
d = {}
for i in range(1000):
    try:
        m = sorted(range(i * 10**6, (i + 1) * 10**6), key=d.setdefault)
    except TypeError:
        pass
result = len(d)
