# Buy one taco from the first store the search for "taco" finds, and place the order.
await search(query="taco")
stores = await list_stores()
await goto_store(name=stores.items[0].name)
menu = await list_menu_items()
taco = None
for item in menu.items:
    if "taco" in item.name.lower():
        taco = item.name
        break
if taco is None:
    raise ValueError(f"{stores.items[0].name} sells no taco")
added = await add_to_cart(item_name=taco, quantity=1)
await goto_cart()
await goto_checkout()
order = await place_order()
result = f"Ordered one {added.item_added}: order {order.order_id}, total ${order.total:.2f}."
