# Total Expenses in 2025: the income statement filtered to 2025; the Expenses root row's USD total.
await filter_by_time(time="2025")
columns = await list_columns()
result = None
for column in columns.items:
    words = column.text.split()
    if result is None and "Expenses" in words:
        result = words[words.index("Expenses") + 1].replace("\u2212", "") + " USD"
