await goto_issue(title="Duplicate entries after import")
issue = await get_issue()
result = issue.assigned_to or "nobody"
