# Two Mochi Sets from Stonemill Matcha, for pickup.
await search(query="Stonemill Matcha")
await goto_store(name="Stonemill Matcha")
await add_to_cart(item_name="Mochi Set", item_quantity=2)
await goto_cart()
await goto_checkout()
await place_order(mode="pickup")
order = await get_order_details()
result = f"Placed pickup order {order.order_id} for two Mochi Sets, total ${order.order_total:.2f}."
