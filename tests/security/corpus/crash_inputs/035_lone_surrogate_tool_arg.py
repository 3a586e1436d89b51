# expect: stopped
# class: crash_inputs
# why: a lone surrogate sent as a tool argument
x = await search(query="\udcff")
result = 1
