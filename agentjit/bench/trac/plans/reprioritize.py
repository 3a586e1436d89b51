# Open the ticket from the active-tickets report by its summary; change its milestone and priority, workflow left as is.
await goto_report()
await goto_collapsed(name="{1} Active Tickets")
await goto_ticket(summary="Add an index on the events table")
await edit_ticket(action="leave", field_milestone="1.0", field_priority="critical")
result = "done"
