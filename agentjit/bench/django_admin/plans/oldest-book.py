# Sort the book change list by its Year column header, oldest first, and read the first row.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await sort_result_lists(column="Year", direction="ascending")
rows = await list_result_lists()
book = rows["items"][0]
result = f"{book['title']} ({book['year']})"
