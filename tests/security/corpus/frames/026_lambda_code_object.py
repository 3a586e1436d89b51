# expect: reject
# class: frames
# why: lambda.__code__
f = lambda: 1
result = str(f.__code__)
