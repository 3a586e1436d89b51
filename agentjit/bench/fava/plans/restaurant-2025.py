# Expenses:Food:Restaurant in 2025: the income statement filtered to 2025 (the Time filter), then
# the amount after the account's short name in the expenses column.
await filter_by_time(time="2025")
columns = await list_columns()
result = None
for column in columns.items:
    words = column.text.split()
    if "Restaurant" in words:
        result = words[words.index("Restaurant") + 1].replace("\u2212", "") + " USD"
