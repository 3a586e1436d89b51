# Add a child page 'Moons Guide' under Home, with an intro and a body, saved as a draft
# (judged: a page of that slug in wagtailcore_page, its latest revision's body, judge.py create_page).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await goto_admin_pages_add_home_homepage_id()
await do_fill_homepage(body="The moon keeps one face to us.")
await create_page(title="Moons Guide", intro="A short guide about moons.")
result = "done"
