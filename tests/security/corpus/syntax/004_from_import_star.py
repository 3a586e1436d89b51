# expect: reject
# class: syntax
# why: from os import *
from os import *
result = 1
