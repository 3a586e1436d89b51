# The best-rated store among the search results for "matcha".
await search(query="matcha")
stores = await list_stores()
best = stores.items[0]
for store in stores.items:
    if store.rating > best.rating:
        best = store
result = f"{best.name} has the highest rating ({best.rating}) among the matcha results."
