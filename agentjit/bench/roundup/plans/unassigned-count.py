# The sidebar's "Show Unassigned" view lists the open issues with no assignee.
await show_unassigned()
rows = await list_issues()
result = len(rows.items)
