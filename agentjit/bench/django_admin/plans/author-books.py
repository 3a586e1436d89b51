# The built change-list reader returns one fact per row, keyed by the row's title (slugged),
# valued by the next column (the author): the rows the search left are the non-empty ones.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await search_2(q="Hana Sato")
rows = await get_admin_library_book_details()
result = ", ".join(key.replace("_", " ") for key, author in rows.items() if author == "Hana Sato")
