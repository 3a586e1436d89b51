# expect: reject
# class: frames
# why: a coroutine's cr_frame is forbidden by name
co = goto_home()
result = str(co.cr_frame)
await co
