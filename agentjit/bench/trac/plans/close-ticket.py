# Open the ticket from the active-tickets report by its summary; the workflow's "resolve" choice takes the resolution.
await goto_report()
await goto_collapsed(name="{1} Active Tickets")
await goto_ticket(summary="Session expires too early")
await edit_ticket(action="resolve", action_resolve_resolve_resolution="fixed")
result = "done"
