# A 500 USD transfer from checking to the brokerage account through the "Add Journal Entry" dialog.
await open_add_journal_entry()
result = await add_journal_entry(
    date="2025-12-31",
    payee="Transfer",
    narration="Move to brokerage",
    lines=[
        {"account": "Assets:US:ETrade:Cash", "amount": "500.00 USD"},
        {"account": "Assets:US:BofA:Checking", "amount": "-500.00 USD"},
    ],
)
