# The wiki's page index opens OnCall; its "Edit this page" button opens the editor, whose text is read,
# extended by the new line and saved whole.
await goto_wiki()
await goto_wiki_name()
await goto_link(name="OnCall")
await goto_wiki_name_edit()
page = await get_edit_wiki_values()
await edit_wiki(text=page["text"].rstrip() + "\n * April: carol\n", comment="April rota")
result = "done"
