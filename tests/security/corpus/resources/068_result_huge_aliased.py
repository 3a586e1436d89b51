# expect: stopped
# class: resources
# why: a result that is a million references to a million-item list (10**12 items to send back)
x = [0] * 10**6
result = [x] * 10**6
