# expect: stopped
# class: resources
# why: str.replace expanding every character a thousandfold, repeatedly
s = "x" * 1000
while True:
    s = s.replace("x", "xx")
result = len(s)
