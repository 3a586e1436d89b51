# Filter the loan change list by status (the sidebar's filter links) and read the books of its rows.
await login(username="admin", password="library-pass-1")
await goto_admin_library_loan()
await filter_loans_by_status(status="Overdue")
rows = await list_result_lists()
result = ", ".join(row["cells"]["Book"] for row in rows["items"])
