# The filter form on another table than the one demonstrated (authors).
await goto_library()
await goto_db_table(name="authors")
await apply(filter_column="country", filter_op="=", filter_value="Japan")
rows = await list_rows_and_columns()
result = [r.name for r in rows.items]
