await login(username="admin", password="library-pass-1")
await goto_admin_library_author_add()
await add_author(name="Lena Novak", country="Croatia")
result = "done"
