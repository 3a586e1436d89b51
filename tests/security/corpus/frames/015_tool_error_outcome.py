# expect: stopped
# class: frames
# why: a ToolError's outcome attribute is a runtime object, not data
result = 0
try:
    await goto_store(name="no-such-store-anywhere")
except ToolError as e:
    o = e.outcome
    result = str(o)
