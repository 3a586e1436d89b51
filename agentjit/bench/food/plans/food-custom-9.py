# The cheapest fries item across five stores.
best_store = None
best_item = None
best_price = None
for name in ["Winstop", "Man vs. Fries", "McDonald's", "Popeyes", "Ike's"]:
    store = await goto_store(name=name)
    menu = await list_menu_items()
    for item in menu.items:
        if "fries" in item.name.lower() and (best_price is None or item.price < best_price):
            best_store = store.name
            best_item = item.name
            best_price = item.price
result = f"{best_store} has the cheapest fries: {best_item} at ${best_price:.2f}."
