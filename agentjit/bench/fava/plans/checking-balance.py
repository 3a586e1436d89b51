# The balance of Assets:US:BofA:Checking, read from the balance sheet. The built tools have no
# row-level report reader yet: list_columns gives each report column as one text, and the
# amount follows the account's short name in it.
await goto_balance_sheet()
columns = await list_columns()
result = None
for column in columns.items:
    words = column.text.split()
    if "Checking" in words:
        result = words[words.index("Checking") + 1] + " USD"
