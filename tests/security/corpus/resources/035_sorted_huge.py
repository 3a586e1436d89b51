# expect: stopped
# class: resources
# why: sorting a huge list built by repetition
result = sorted([3, 1, 2] * 10**9)[0]
