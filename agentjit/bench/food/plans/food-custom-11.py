# Fill the cart with two Stonemill Matcha items; no checkout.
await goto_store(name="Stonemill Matcha")
await add_to_cart(item_name="Iced Matcha Latte", customizations="Size:Large,Milk:Oat")
await add_to_cart(item_name="Matcha Croissant")
await goto_cart()
cart = await view_cart()
result = f"Cart: {len(cart.lines)} lines, total ${cart.total:.2f}."
