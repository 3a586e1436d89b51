# Walk every page of the books table and count the rows from 2020 on.
await goto_library()
await goto_db_table(name="books")
count = 0
for _ in range(20):
    rows = await list_rows_and_columns()
    count += len([r for r in rows.items if r.year >= 2020])
    if len(rows.items) < 100:
        break
    await next_page()
result = count
