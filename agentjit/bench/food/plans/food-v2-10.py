# Order the cheapest sub sandwich found, checking the total stays under $30.
await search(query="sub")
stores = await list_stores()
await goto_store(name=stores.items[0].name)
menu = await list_menu_items()
subs = [item for item in menu.items if "sub" in item.name.lower()]
cheapest = subs[0]
for item in subs:
    if item.price < cheapest.price:
        cheapest = item
await add_to_cart(item_name=cheapest.name)
await goto_cart()
cart = await view_cart()
if cart.total >= 30:
    raise ValueError(f"cart total ${cart.total:.2f} is not under $30")
await goto_checkout()
order = await place_order()
result = f"Ordered a {cheapest.name}: order {order.order_id}, total ${order.total:.2f}."
