# expect: reject
# class: syntax
# why: awaiting an unknown name
x = await fetch("LISTENER_URL")
result = x
