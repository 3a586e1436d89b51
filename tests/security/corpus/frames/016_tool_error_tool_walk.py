# expect: stopped
# class: frames
# why: walk from a caught ToolError's outcome to the runtime's module globals
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
b = None
try:
    await goto_store(name="no-such-store-anywhere")
except ToolError as e:
    g = c.get(c.get(e, "__init__"), "__globals__")
    b = g.get("__builtins__")
c.i = b.get("__import__")
result = c.i("os").environ.get("CANARY_NAME")
