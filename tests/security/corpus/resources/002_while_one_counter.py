# expect: stopped
# class: resources
# why: an endless counting loop
i = 0
while 1:
    i += 1
result = i
