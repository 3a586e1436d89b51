# Search the book change list, open the book's row by its title, save the new price (a decimal input).
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await search_books(q="Moths of the Steppe")
await goto_admin_library_book_change(title="Moths of the Steppe")
await change_book(price=19.99)
result = "done"
