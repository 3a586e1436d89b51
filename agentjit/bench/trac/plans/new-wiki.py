# The page that does not exist yet is opened by its name (its address); "Create this page" opens the
# editor, and the text is saved.
await goto_wiki_by_name(name="Retrospective")
await goto_wiki_name_edit()
await edit_wiki(text="What went well in 1.0", comment="new page")
result = "done"
