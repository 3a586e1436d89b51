# expect: stopped
# class: frames
# why: raising a ToolError with a crafted outcome object
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
result = 0
raise ToolError("boom", tool="x", outcome=c)
