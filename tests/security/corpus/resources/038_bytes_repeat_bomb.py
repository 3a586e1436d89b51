# expect: stopped
# class: resources
# why: b'x' * 10**10
result = len(b"x" * 10**10)
