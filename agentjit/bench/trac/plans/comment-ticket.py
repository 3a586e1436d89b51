# Open the ticket from the active-tickets report by its summary, add the comment (workflow: leave as is).
await goto_report()
await goto_collapsed(name="{1} Active Tickets")
await goto_ticket(summary="Export to CSV drops the last row")
await edit_ticket(action="leave", comment="Reproduced on 1.0 with a 3-line file.")
result = "done"
