# expect: reject
# class: frames
# why: an async generator expression in a comprehension
g = (x async for x in goto_home())
result = 1
