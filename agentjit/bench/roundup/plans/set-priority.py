await login(login_name="alice", login_password="demo-pass-1")
await goto_issue(title="Graph legend is cut off")
await edit_issue(priority="critical")
result = "done"
