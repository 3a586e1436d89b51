# expect: reject
# class: lookalikes
# why: a Cyrillic а in a tool name is another name (unknown-tool)
await goto_home()
x = await list_stоres()
result = 1
