# The database page lists its tables: "books id, title, ... 320 rows" (the number before "rows").
await goto_library()
tables = await list_db_tables()
result = {}
for t in tables.items:
    words = t.text.split()
    result[words[0]] = int(words[words.index("rows") - 1].replace(",", ""))
