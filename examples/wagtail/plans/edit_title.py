# Rename 'Owls Guide' (a page no demonstration edited) and save a draft
# (judged: its draft_title in wagtailcore_page, judge.py edit_title).
await goto_admin_login()
await login(username="admin", password="wagtail-pass-1")
await goto_admin_pages_by_id(id="3")
await goto_page(title="Owls Guide")
await edit_pages(title="Owls Guide, revised")
result = "done"
