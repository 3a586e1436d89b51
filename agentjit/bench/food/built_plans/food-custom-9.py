# The cheapest fries item across five stores: find each store by search, collect its fries, pick the cheapest.
found = []
for name in ["Winstop", "Man vs. Fries", "McDonald's", "Popeyes", "Ike's"]:
    await search(query=name)
    stores = await list_stores()
    store = stores.items[0].name
    for s in stores.items:
        if s.name.lower().startswith(name.lower()):
            store = s.name
            break
    await goto_store(name=store)
    menu = await list_menu_items()
    for item in menu.items:
        if "fries" in item.item_name.lower():
            found.append((item.price, store, item.item_name))
best_price, best_store, best_item = found[0]
for price, store_name, item_name in found:
    if price < best_price:
        best_price, best_store, best_item = price, store_name, item_name
result = f"{best_store} has the cheapest fries: {best_item} at ${best_price:.2f}."
