# How many of the first five "Best near you" stores have under 20 reviews.
stores = await list_stores(section="Best near you", limit=5)
count = 0
for store in stores.items:
    if store.review_count < 20:
        count += 1
result = f"{count} of the first five restaurants in Best near you have under 20 reviews."
