# The first three store cards on the home page.
stores = await list_stores(limit=3)
names = [s.name for s in stores.items]
result = "The first three restaurants are " + ", ".join(names) + "."
