await goto_issue_search()
await filter_issues(status="in-progress", sort="id")
rows = await list_issues()
result = len(rows.items)
