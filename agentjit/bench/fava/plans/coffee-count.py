# Transactions of Expenses:Food:Coffee: the journal with the Account filter, one row each.
await goto_journal()
await filter_by_account(account="Expenses:Food:Coffee")
rows = await list_transactions()
result = len(rows.items)
