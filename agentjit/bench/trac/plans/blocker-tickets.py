# A new custom query shows the open tickets with a priority column (read from the row's cells).
await goto_report()
await goto_query()
rows = await list_tickets()
result = ", ".join(row["summary"] for row in rows["items"] if row["cells"]["Priority"] == "blocker")
