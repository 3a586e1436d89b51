# A 24.50 USD lunch through Fava's "Add Journal Entry" dialog: open it, fill it, save.
await open_add_journal_entry()
result = await add_journal_entry(
    date="2025-12-30",
    payee="Corner Deli",
    narration="Team lunch",
    lines=[
        {"account": "Expenses:Food:Restaurant", "amount": "24.50 USD"},
        {"account": "Liabilities:US:Chase:Slate", "amount": "-24.50 USD"},
    ],
)
