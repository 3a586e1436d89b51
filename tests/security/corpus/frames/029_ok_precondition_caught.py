# expect: ok
# class: frames
# why: a failing tool call is a ToolError a plan may catch
# result: 'caught'
try:
    await goto_store(name="no-such-store-anywhere")
    result = "no error"
except ToolError:
    result = "caught"
