# expect: reject
# class: syntax
# why: import os as o
import os as o
result = o.getcwd()
