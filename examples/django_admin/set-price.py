# The README's write walkthrough: over the tools built from three demonstrations on Django's admin
# (search the books, open one, edit one), change a book's price. The names are the built ones.
await login(username="admin", password="library-pass-1")
await goto_admin_library_book()
await search_books(q="Moths of the Steppe")
await goto_result_list(title="Moths of the Steppe")
await change_book(price=19.99)
result = "done"
