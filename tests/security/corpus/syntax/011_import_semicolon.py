# expect: reject
# class: syntax
# why: an import after a semicolon
x = 1; import os
result = x
