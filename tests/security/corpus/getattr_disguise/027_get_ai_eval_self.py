# expect: stopped
# class: getattr_disguise
# why: ai_eval is a bound method; its __self__ is the PlanRun with the page
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
run = c.get(ai_eval, "__self__")
page = run.page
result = str(page)
