# Fill the cart with two Stonemill Matcha items; no checkout.
await search(query="Stonemill Matcha")
await goto_store(name="Stonemill Matcha")
await add_to_cart(item_name="Iced Matcha Latte", item_quantity=1, options={"Size": "Large", "Milk": "Oat"})
await add_to_cart(item_name="Matcha Croissant", item_quantity=1)
await goto_cart()
cart = await list_cart_lines()
result = f"Cart: {len(cart.items)} lines: " + ", ".join([line.item_name for line in cart.items]) + "."
