# Open the editor of 'Tea Guide' from the page list (judged: the editor shows that page's title).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await goto_page(title="Tea Guide")
result = await observe_page()
