# expect: reject
# class: frames
# why: close() on a tool coroutine, then reuse
co = list_sections()
co.close()
x = await co
result = x
