# Two Mochi Sets from Stonemill Matcha, for pickup.
await goto_store(name="Stonemill Matcha")
await add_to_cart(item_name="Mochi Set", quantity=2)
await goto_cart()
await goto_checkout()
order = await place_order(mode="pickup")
result = f"Placed pickup order {order.order_id} for two Mochi Sets, total ${order.total:.2f}."
