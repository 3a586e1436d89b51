# Petco's most expensive menu item.
await search(query="Petco")
await goto_store(name="Petco")
menu = await list_menu_items()
top = menu.items[0]
for item in menu.items:
    if item.price > top.price:
        top = item
result = f"The most expensive item at Petco is the {top.item_name} at ${top.price:.2f}."
