# The latest Verizon Wireless payment: the query shell, newest expense posting first.
await goto_query()
await submit_query(query="SELECT date, position WHERE payee = 'Verizon Wireless' AND account ~ '^Expenses:' ORDER BY date DESC LIMIT 1")
rows = await list_rows()
result = str(rows.items[0].cells)
