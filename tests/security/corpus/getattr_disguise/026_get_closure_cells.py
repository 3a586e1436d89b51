# expect: stopped
# class: getattr_disguise
# why: a tool binding's closure cells hold the PlanRun and the page
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
cells = c.get(list_stores, "__closure__")
result = str([c.get(x, "cell_contents") for x in cells])
