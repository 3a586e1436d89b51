await login(login_name="alice", login_password="demo-pass-1")
await goto_issue_item()
await create_issue(title="Export button missing on mobile", priority="bug", note="The export button is hidden on small screens.")
result = "filed"
