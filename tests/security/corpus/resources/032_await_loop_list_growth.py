# expect: stopped
# class: resources
# why: an endless loop of tool calls that keeps every result
keep = []
while True:
    await goto_home()
    keep.append(await list_sections())
result = len(keep)
