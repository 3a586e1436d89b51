# The pages under Home sorted by title (judged: the first rows are the titles first in alphabetical order).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await sort_pages(column="Title")
rows = await list_pages()
result = [row["title"] for row in rows["items"]]
