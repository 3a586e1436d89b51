# Full-text search of the books table.
await goto_library()
await goto_db_table(name="books")
await search(query="lantern")
rows = await list_rows_and_columns()
result = len(rows.items)
