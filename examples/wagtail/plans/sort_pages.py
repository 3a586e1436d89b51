# The pages under Home sorted by title.
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await do_sort_the_order_pages()
result = await observe_page()
