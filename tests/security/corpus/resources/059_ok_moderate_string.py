# expect: ok
# class: resources
# why: '-' * 1000 is small
# result: 1000
result = len("-" * 1000)
