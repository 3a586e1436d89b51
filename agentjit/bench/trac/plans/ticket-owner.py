# Find the ticket's number in the active-tickets report, jump to it with the search box ("#N"), read it.
await goto_report()
await goto_collapsed(name="{1} Active Tickets")
rows = await list_tickets()
number = [row["ticket"] for row in rows["items"] if row["summary"] == "Export to CSV drops the last row"][0]
await search(query=number)
ticket = await get_ticket()
result = f"owner {ticket['owned_by']}, priority {ticket['priority']}"
