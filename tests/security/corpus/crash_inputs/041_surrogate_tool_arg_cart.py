# expect: stopped
# class: crash_inputs
# why: a lone surrogate in a WRITE tool's argument
await goto_store(name="stonemill-matcha")
await add_to_cart(item_name="\ud800")
result = 1
