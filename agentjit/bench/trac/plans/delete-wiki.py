# The wiki's page index opens MeetingNotes; its "Delete page" button opens the confirmation, whose button deletes it.
await goto_wiki()
await goto_wiki_name()
await goto_link(name="MeetingNotes")
await goto_wiki_name_delete()
await delete_wiki()
result = "done"
