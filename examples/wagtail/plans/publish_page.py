# Publish the draft 'Kites History' from the editor's More actions menu
# (judged: live = 1 in wagtailcore_page, judge.py publish_page).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await goto_page(title="Kites History")
await do_more_actions_pages()
await edit_pages_2()
result = "done"
