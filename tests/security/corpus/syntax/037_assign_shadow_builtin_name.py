# expect: stopped
# class: syntax
# why: assigning a tool to the name of a builtin, then calling it
result = 0
sorted = goto_home
x = await sorted()
raise ValueError("shadowed")
