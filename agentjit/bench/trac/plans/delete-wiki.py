# The wiki's page index opens MeetingNotes; its "Delete page" button opens the confirmation, whose button deletes it.
await goto_wiki()
await goto_wiki_name()
await do_meeting_notes_wiki()
await goto_wiki_name_delete()
await delete_wiki()
result = "done"
