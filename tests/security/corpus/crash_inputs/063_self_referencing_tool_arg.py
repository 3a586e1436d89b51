# expect: stopped
# class: crash_inputs
# why: a self-referencing list as a tool argument
a = ["x"]
a.append(a)
await goto_home()
y = await search(query=a)
result = 1
