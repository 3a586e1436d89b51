# Search the loans for the borrower, open the row of her loan of the book, set its status.
await login(username="admin", password="library-pass-1")
await goto_admin_library_loan()
await search_loans(q="Maya Patel")
await goto_admin_library_loan_change(title="A Winter in Uppsala")
await change_loan(status="Overdue")
result = "done"
