# expect: reject
# class: syntax
# why: from os import system
from os import system
system("touch MARKER_PATH")
result = 1
