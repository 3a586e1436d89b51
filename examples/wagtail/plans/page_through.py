# The second page of the pages under Home (60 pages, 50 a page; judged: the 10 rows the first page does not show).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await do_next()
rows = await list_pages()
result = [(row["title"], row["status"]) for row in rows["items"]]
