# expect: stopped
# class: resources
# why: center and zfill with huge widths
result = len("a".center(10**10) + "1".zfill(10**10))
