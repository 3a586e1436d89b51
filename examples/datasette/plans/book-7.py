# Open book 7's row page from the table and read its row.
await goto_library()
await goto_db_table(name="books")
await goto_rows_and_column(id=7)
rows = await list_rows_and_columns()
book = rows.items[0]
result = f"{book.title}, {book.year}"
