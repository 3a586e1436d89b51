# Visit each of the first five "Best near you" stores and count those with under 20 reviews.
stores = await list_stores(section="Best near you")
review_counts = []
for store in stores.items[:5]:
    await goto_store(name=store.name)
    details = await get_store_details()
    review_counts.append(details.review_count)
    await goto_home()
count = len([n for n in review_counts if n < 20])
result = f"{count} of the first five restaurants in Best near you have under 20 reviews."
