# Open the books table, filter it with the table's filter form, count the rows shown.
await goto_library()
await goto_db_table(name="books")
await apply(filter_column="genre", filter_op="=", filter_value="Poetry")
rows = await list_rows_and_columns()
result = len(rows.items)
