# Open the author's row by name (not a recorded row) and save the new country.
await login(username="admin", password="library-pass-1")
await goto_admin_library_author()
await goto_admin_library_author_change(title="Jonas Becker")
await change_author(country="Austria")
result = "done"
