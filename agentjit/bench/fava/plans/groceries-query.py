# Expenses:Food:Groceries in 2025 from the query shell: the one cell of the result table.
await goto_query()
await submit_query(query="SELECT sum(position) WHERE account = 'Expenses:Food:Groceries' AND year = 2025")
rows = await list_rows()
result = str(rows.items[0].cells)
