# Write a new body for 'Bees Guide' in its rich-text editor and save a draft
# (judged: its latest revision's body, judge.py edit_body).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await goto_page(title="Bees Guide")
await do_fill_pages(body="Bees dance to say where the flowers are.")  # the Draftail editor: a workflow tool of its own
await edit_pages()
result = "done"
