# Open the issue from the list on the home page and read its form.
await goto_issue(title="Calendar shows the wrong week")
issue = await get_issue()
result = f"status {issue.status}, priority {issue.priority}"
