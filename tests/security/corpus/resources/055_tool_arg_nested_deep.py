# expect: stopped
# class: resources
# why: a tool argument nested 10,000 deep
a = "x"
for i in range(10000):
    a = [a]
await goto_home()
x = await search(query=a)
result = 1
