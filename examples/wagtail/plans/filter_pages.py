# The pages under Home that have no child pages (the listing's filter menu).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await do_has_child_pages()
result = await observe_page()
