# ReleasePlan is opened by its name; its editor (opened, never saved) holds the page's text, whose
# "Release manager:" line is the answer.
await goto_wiki_by_name(name="ReleasePlan")
await goto_wiki_name_edit()
page = await get_edit_wiki_values()
lines = [line for line in page["text"].splitlines() if line.lower().startswith("release manager")]
result = lines[0].split(":", 1)[1].strip()
