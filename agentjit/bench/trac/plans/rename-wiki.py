# The wiki's page index opens CodingStyle; its "Rename page" button opens the rename form (no redirect page by default).
await goto_wiki()
await goto_wiki_name()
await goto_link(name="CodingStyle")
await goto_wiki_name_rename()
await edit_wiki_2(new_name="StyleGuide")
result = "done"
