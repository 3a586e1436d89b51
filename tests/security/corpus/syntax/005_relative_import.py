# expect: reject
# class: syntax
# why: a relative import
from . import runner
result = 1
