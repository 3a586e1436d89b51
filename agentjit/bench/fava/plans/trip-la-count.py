# Transactions tagged #trip-los-angeles-2025: the journal with the tag filter, one row each.
await goto_journal()
await filter_by_tag_payee(tag_payee="#trip-los-angeles-2025")
rows = await list_transactions()
result = len(rows.items)
