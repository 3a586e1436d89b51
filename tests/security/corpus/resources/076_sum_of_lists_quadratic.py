# expect: ok
# class: resources
# why: sum(parts, []) copies the growing list for every part (10**10 copies here); the guard joins them in one pass
# result: 200000
result = len(sum([[0]] * 200000, []))
