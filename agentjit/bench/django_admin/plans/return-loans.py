# Search the loans for the borrower, keep the rows not returned yet, tick them all and run the bulk action.
await login(username="admin", password="library-pass-1")
await goto_admin_library_loan()
await search_loans(q="Tom Becker")
rows = await list_result_lists()
outstanding = [row["cells"]["Book"] for row in rows["items"] if row["cells"]["Status"] != "Returned"]
await mark_selected_loans_as_returned(rows=outstanding)
result = "done"
