# Postings to Expenses:Home:Rent from the query shell: count(*) in the result table.
await goto_query()
await submit_query(query="SELECT count(*) WHERE account = 'Expenses:Home:Rent'")
rows = await list_rows()
result = str(rows.items[0].cells)
