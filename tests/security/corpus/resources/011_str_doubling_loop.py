# expect: stopped
# class: resources
# why: a string doubled in a loop
s = "x"
for i in range(64):
    s = s + s
result = len(s)
