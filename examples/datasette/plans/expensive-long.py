# Filter on a number column, then pick the most expensive of the rows shown.
await goto_library()
await goto_db_table(name="books")
await apply(filter_column="pages", filter_op=">", filter_value="850")
rows = await list_rows_and_columns()
best = rows.items[0]
for r in rows.items:
    if r.price > best.price:
        best = r
result = f"{best.title}, {best.price}"
