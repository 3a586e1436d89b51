# The first three store cards on the home page.
stores = await list_stores()
names = [s.name for s in stores.items[:3]]
result = "The first three restaurants are " + ", ".join(names) + "."
