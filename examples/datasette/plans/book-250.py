# Book 250 is on the third page of the books table (100 rows a page).
await goto_library()
await goto_db_table(name="books")
await next_page()
await next_page()
await goto_rows_and_column(id=250)
book = (await list_rows_and_columns()).items[0]
result = book.title
