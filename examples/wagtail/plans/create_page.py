# Add a child page 'Otters Guide' under Home, saved as a draft (judged: a page of that title in wagtailcore_page).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await goto_admin_pages_add_home_homepage_id()
await do_fill_homepage(body="Otters hold hands while they sleep.")
await create_page(title="Otters Guide", intro="A short guide about otters.")
result = await observe_page()
