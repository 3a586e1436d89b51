# The database page lists its tables: name "books", text "books id, title, ... 320 rows".
await goto_library()
tables = await list_db_tables()
result = {}
for t in tables.items:
    words = t.text.split()
    result[t.name] = int(words[words.index("rows") - 1].replace(",", ""))
