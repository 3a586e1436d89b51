# expect: stopped
# class: resources
# why: while True: pass must stop at the time or step limit
while True:
    pass
result = 1
