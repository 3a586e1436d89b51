# The first three reviews of every store in the "Costume party ready" section.
stores = await list_stores(section="Costume party ready")
reviews = {}
for store in stores.items:
    await goto_store(name=store.name)
    found = await list_reviews(limit=3)
    reviews[store.name] = [r.text for r in found.items]
result = reviews
