# expect: stopped
# class: foreign_assign
# why: assign onto ai_eval's PlanRun through the bound method
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
run = c.get(ai_eval, "__self__")
run.check_state = False
result = 1
