# The active-tickets report lists every open ticket with its component.
await goto_report()
await goto_collapsed(name="{1} Active Tickets")
rows = await list_tickets()
result = str(len([row for row in rows["items"] if row["component"] == "backend"]))
