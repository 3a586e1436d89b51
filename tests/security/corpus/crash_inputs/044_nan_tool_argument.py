# expect: stopped
# class: crash_inputs
# why: NaN as a tool argument where a string is expected
await goto_home()
x = await search(query=float("nan"))
result = 1
