# Sort by pages with the column's header link; a second click reverses the order.
await goto_library()
await goto_db_table(name="books")
await sort_rows_and_columns(column="pages")
await sort_rows_and_columns(column="pages")
rows = await list_rows_and_columns()
result = [r.title for r in rows.items[:3]]
