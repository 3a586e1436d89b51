# expect: stopped
# class: resources
# why: a hundred lists of 900,000 distinct ints each (3 GB)
keep = []
for i in range(100):
    keep.append(list(range(i, i + 900000)))
result = len(keep)
