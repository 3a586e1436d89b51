# Tick the book's row in the change list, run "Delete selected books", then confirm on the page that asks.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await search_2(q="Counting with Bears")
await delete_selected_books(rows=["Counting with Bears"])
await yes_imsure()
result = "done"
