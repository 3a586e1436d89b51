# Filter the book change list by genre, then by stock (the sidebar's filter links), and count the rows.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await filter_books_by_genre(genre="Poetry")
await filter_books_by_in_stock(in_stock="Yes")
rows = await list_result_lists()
result = len(rows["items"])
