# The first three reviews of every store in the home page's "Costume party ready" section.
stores = await list_stores(section="Costume party ready")
reviews = {}
for store in stores.items:
    await goto_store(name=store.name)
    found = await list_reviews()
    reviews[store.name] = [r.review_text for r in found.items[:3]]
    await goto_home()
result = reviews
