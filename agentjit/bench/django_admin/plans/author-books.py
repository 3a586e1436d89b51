# Search the book change list, then read its rows (every column by its header).
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await search_books(q="Hana Sato")
rows = await list_result_lists()
result = ", ".join(row["title"] for row in rows["items"] if row["author"] == "Hana Sato")
