# Search all pages for 'bees' (the live search; judged: the rows shown are the pages titled Bees ...).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_search()
await search_pages(query="bees")  # wagnav's name; the merged build has no search tool (see the README)
found = await list_admin_pageses()
result = [(page["title"], page["status"]) for page in found["items"]]
