# The pages under Home that have no child pages (the listing's filter menu; judged: the filter is in
# the page's address and every row shown is a page without children in wagtailcore_page).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await do_has_child_pages()
rows = await list_pages()
where = await observe_page()
result = {"path": where["path"], "rows": len(rows["items"]), "first": [row["title"] for row in rows["items"][:5]]}
