# What is owed on Liabilities:US:Chase:Slate, read from the balance sheet's Liabilities column
# (see checking-balance.py: the amount follows the account's short name).
await goto_balance_sheet()
columns = await list_columns()
result = None
for column in columns.items:
    words = column.text.split()
    if "Slate" in words:
        result = words[words.index("Slate") + 1].replace("\u2212", "") + " USD"
