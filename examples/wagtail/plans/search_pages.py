# Search all pages for 'bees' (the live search; judged: the rows shown are the pages titled Bees ...).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_search()
await search_pages(query="bees")  # (search_all_keyboard_shortcuts in the build measured: see the README)
found = await list_pages_2()
result = [(page["title"], page["status"]) for page in found["items"]]
