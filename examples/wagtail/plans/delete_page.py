# Delete 'Ferns Notes' (not the demonstrated row) from its row menu, confirming
# (judged: no page of that title in wagtailcore_page, judge.py delete_page).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await goto_delete_page(page="Ferns Notes")
await delete_pages()
result = "done"
