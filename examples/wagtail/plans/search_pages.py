# Search all pages for 'bees' (the live search; judged: the rows shown are the pages titled Bees ...).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_search()
await search_admin_pages(query="bees")  # the live search, named by the list it narrows
found = await list_admin_pages()
result = [(page["title"], page["status"]) for page in found["items"]]
