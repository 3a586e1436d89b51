# Total Income in 2024: the income statement filtered to 2024; the Income root row's USD total.
await filter_by_time(time="2024")
columns = await list_columns()
result = None
for column in columns.items:
    words = column.text.split()
    if result is None and "Income" in words:
        result = words[words.index("Income") + 1].replace("\u2212", "") + " USD"
