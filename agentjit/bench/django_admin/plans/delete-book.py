# Search the books for the title, open its change form, follow its Delete link, confirm.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await search_books(q="Counting with Bears")
await goto_admin_library_book_change(title="Counting with Bears")
await goto_admin_library_book_id_delete()
await delete_book()
result = "done"
