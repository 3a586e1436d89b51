# The cheapest fries item across five stores: collect each store's fries, then pick the cheapest.
found = []
for name in ["Winstop", "Man vs. Fries", "McDonald's", "Popeyes", "Ike's"]:
    store = await goto_store(name=name)
    menu = await list_menu_items()
    for item in menu.items:
        if "fries" in item.name.lower():
            found.append((item.price, store.name, item.name))
best_price, best_store, best_item = found[0]
for price, store_name, item_name in found:
    if price < best_price:
        best_price, best_store, best_item = price, store_name, item_name
result = f"{best_store} has the cheapest fries: {best_item} at ${best_price:.2f}."
