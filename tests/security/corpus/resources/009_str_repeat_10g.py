# expect: stopped
# class: resources
# why: 'x' * 10**10 asks for 10 GB
x = "x" * 10**10
result = len(x)
