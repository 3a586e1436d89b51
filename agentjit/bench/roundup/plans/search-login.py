# The search box: every issue whose text mentions the word.
await search_issues(search_text="login")
found = await list_issues()
result = [row.title for row in found.items]
