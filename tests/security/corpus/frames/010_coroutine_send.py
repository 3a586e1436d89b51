# expect: reject
# class: frames
# why: driving a tool coroutine by hand with send()
co = goto_home()
co.send(None)
result = 1
