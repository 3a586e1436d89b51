# expect: stopped
# class: resources
# why: every call argument stays in the trace the parent keeps; one 5 MB argument is refused
result = await search(query="x" * 5000000)
