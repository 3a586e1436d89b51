# expect: ok
# class: resources
# why: appending a big list three times makes a list of three items, not three million
# result: 3
big = list(range(999999))
keep = []
keep.append(big)
keep.append(big)
keep.append(big)
result = len(keep)
