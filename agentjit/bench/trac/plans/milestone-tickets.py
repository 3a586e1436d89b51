# The active-tickets report lists every open ticket with its milestone (read as a number: 1.1).
await goto_report()
await goto_collapsed(name="{1} Active Tickets")
rows = await list_tickets()
result = ", ".join(row["summary"] for row in rows["items"] if str(row["milestone"]) == "1.1")
