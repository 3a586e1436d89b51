# expect: stopped
# class: resources
# why: an endless loop of cheap tool calls
while True:
    await goto_home()
result = 1
