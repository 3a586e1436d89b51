# expect: stopped
# class: resources
# why: join over a huge generator
result = len("".join("x" for i in range(10**12)))
