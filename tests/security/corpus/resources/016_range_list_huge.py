# expect: stopped
# class: resources
# why: list(range(10**12))
result = len(list(range(10**12)))
