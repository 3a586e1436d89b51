# expect: stopped
# class: resources
# why: str() of a list holding one million references to a million-item list (a C-level loop)
x = [0] * 10**6
y = [x] * 10**6
result = len(str(y))
