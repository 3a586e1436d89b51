# expect: ok
# class: syntax
# why: a plain walrus in an if
# result: 4
if (n := len("abcd")) > 3:
    result = n
