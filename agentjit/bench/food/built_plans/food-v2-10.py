# Order the cheapest sub sandwich found, checking the total stays under $30.
await search(query="sub")
stores = await list_stores()
await goto_store(name=stores.items[0].name)
menu = await list_menu_items()
subs = [item for item in menu.items if "sub" in item.item_name.lower()]
cheapest = subs[0]
for item in subs:
    if item.price < cheapest.price:
        cheapest = item
await add_to_cart(item_name=cheapest.item_name, item_quantity=1)
await goto_cart()
cart = await get_cart_details()
if cart.cart_total >= 30:
    raise ValueError(f"cart total ${cart.cart_total:.2f} is not under $30")
await goto_checkout()
await place_order(mode="pickup")
order = await get_order_details()
result = f"Ordered a {cheapest.item_name}: order {order.order_id}, total ${order.order_total:.2f}."
