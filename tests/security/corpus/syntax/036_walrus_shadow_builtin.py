# expect: stopped
# class: syntax
# why: a walrus rebinding a builtin name (len) to a tool
result = 0
if (len := goto_home):
    pass
x = await len()
raise ValueError("rebound")
