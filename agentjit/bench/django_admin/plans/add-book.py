# Open the add-book form from the book change list and save it with every field the site requires.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await goto_admin_library_book_add()
await add_book(title="The Winter Orchard", author="Ingrid Olsen", genre="Fiction", year=2023, price=17.50)
result = "done"
