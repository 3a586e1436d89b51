# Search the book change list for the title and read the row's price (as shown: "22.00") and in-stock columns.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await search_books(q="The Salt Road")
rows = await list_result_lists()
book = [row for row in rows["items"] if row["title"] == "The Salt Road"][0]
result = f"price {book['cells']['Price']}, in stock: {book['in_stock']}"
