# The search page: filter on a status, sort on title, no grouping (grouping sorts by priority first).
await goto_issue_search()
await filter_issues(status="deferred", sort="title", group="")
rows = await list_issues()
result = [row.title for row in rows.items]
