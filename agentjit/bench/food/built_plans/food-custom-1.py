# Prices of two pairs of Stonemill Matcha items (Regular is the default size: the menu price).
await search(query="Stonemill Matcha")
await goto_store(name="Stonemill Matcha")
menu = await list_menu_items()
prices = {}
for item in menu.items:
    prices[item.item_name.lower()] = item.price
first = round(prices["matcha croissant"] + prices["iced matcha latte"], 2)
second = round(prices["ceremonial matcha latte"] + prices["mochi set"], 2)
result = (
    f"A matcha croissant and a regular iced matcha latte cost ${first:.2f}; "
    f"a ceremonial matcha latte and a mochi set cost ${second:.2f}."
)
