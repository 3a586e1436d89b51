# expect: stopped
# class: resources
# why: an endless loop of continue
while True:
    continue
result = 1
