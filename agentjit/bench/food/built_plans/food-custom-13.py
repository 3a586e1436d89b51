# The best-rated store in the Mexican category.
await goto_category(category="Mexican")
stores = await list_stores()
best = stores.items[0]
for store in stores.items:
    if store.rating > best.rating:
        best = store
result = f"{best.name} is the highest-rated Mexican restaurant ({best.rating} stars)."
