# Search the book change list, open the book's row by its title, untick "In stock" (a boolean input) and save.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await search_books(q="Cells and Stars")
await goto_admin_library_book_change(title="Cells and Stars")
await change_book(in_stock=False)
result = "done"
