# How many "Light & fresh" stores deliver.
stores = await list_stores(section="Light & fresh")
count = len([s for s in stores.items if s.delivery])
result = f"{count} restaurants in Light & fresh offer delivery."
