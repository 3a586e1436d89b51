await login(login_name="alice", login_password="demo-pass-1")
await goto_issue(title="Improve the error messages")
await edit_issue(assignedto="carol")
result = "done"
