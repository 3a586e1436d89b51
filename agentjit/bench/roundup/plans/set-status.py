await login(login_name="alice", login_password="demo-pass-1")
await goto_issue(title="Allow renaming of projects")
await edit_issue(status="testing")
result = "done"
