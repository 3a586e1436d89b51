# expect: stopped
# class: resources
# why: a tool argument of a billion characters
x = await search(query="q" * 10**9)
result = 1
