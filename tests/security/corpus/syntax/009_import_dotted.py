# expect: reject
# class: syntax
# why: import os.path
import os.path
result = 1
