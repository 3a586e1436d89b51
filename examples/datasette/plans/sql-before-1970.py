# Run a SQL query in the database's query form and read the result table.
await goto_library()
await run_sql(sql="select count(*) as n from books where year < 1970")
rows = await list_rows_and_columns()
result = int(rows.items[0].cells["n"])
