# Roundup lists an issue's messages newest first.
await goto_issue(title="Export to CSV drops the last row")
messages = await list_messages()
newest = messages.items[0]
result = f"{newest.author} wrote: {newest.content}"
