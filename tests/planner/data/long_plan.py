# A 40-line plan for timing the checker: branches, loops, a comprehension, try/except, a write.
stores = await list_stores(section="Best near you", limit=5)
names = [s.name for s in stores.items if s.review_count > 0]
reviews = {}
ratings = []
for name in names[:3]:
    store = await goto_store(name=name)
    details = await get_store_details()
    ratings.append(details.rating)
    found = await list_reviews(limit=2)
    reviews[store.name] = [r.text for r in found.items]
    await goto_home()
best = None
if ratings:
    best = max(ratings)
else:
    best = 0
await goto_store(name="Stonemill Matcha")
menu = await list_menu_items()
cheap = [i.name for i in menu.items if i.price < 10]
total = 0
count = 0
while count < 2 and count < len(cheap):
    total += 1
    count += 1
try:
    item = await get_item_details(item_name=cheap[0])
    label = item.name
except ToolError:
    label = "none"
added = await add_to_cart(item_name=cheap[0], quantity=1)
await goto_cart()
cart = await view_cart()
lines = len(cart.lines)
summary = f"{label}: {lines} line(s), best rating {best}"
if lines > 1:
    summary = summary + " (more than one line)"
else:
    summary = summary + " (one line)"
result = {"summary": summary, "reviews": reviews, "total": total}
