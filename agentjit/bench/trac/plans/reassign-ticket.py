# Open the ticket from the active-tickets report by its summary; the workflow's "reassign" choice takes the new owner.
await goto_report()
await goto_collapsed(name="{1} Active Tickets")
await goto_ticket(summary="Dark mode for the dashboard")
await edit_ticket(action="reassign", action_reassign_reassign_owner="carol")
result = "done"
