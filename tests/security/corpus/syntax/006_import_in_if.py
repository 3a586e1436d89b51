# expect: reject
# class: syntax
# why: an import hidden in a branch
if False:
    import socket
result = 1
