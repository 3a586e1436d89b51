await login(login_name="alice", login_password="demo-pass-1")
await goto_issue(title="Spell checker flags URLs")
await edit_issue(note="Fixed in the next release.")
result = "done"
