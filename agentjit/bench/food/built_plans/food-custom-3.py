# Buy one taco from the first store the search for "taco" finds, and place the order.
await search(query="taco")
stores = await list_stores()
store = stores.items[0].name
await goto_store(name=store)
menu = await list_menu_items()
taco = None
for item in menu.items:
    if "taco" in item.item_name.lower():
        taco = item.item_name
        break
if taco is None:
    raise ValueError(f"{store} sells no taco")
await add_to_cart(item_name=taco, item_quantity=1)
await goto_cart()
await goto_checkout()
await place_order(mode="pickup")
order = await get_order_details()
result = f"Ordered one {taco} from {store}: order {order.order_id}, total ${order.order_total:.2f}."
