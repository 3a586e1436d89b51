# Two hops: book 42's row gives its author_id, the authors table's row gives the name.
await goto_library()
await goto_db_table(name="books")
await goto_rows_and_column(id=42)
book = (await list_rows_and_columns()).items[0]
author_id = int(str(book.author_id).split()[-1])
await goto_library()
await goto_db_table(name="authors")
await goto_rows_and_column(id=author_id)
author = (await list_rows_and_columns()).items[0]
result = author.name
