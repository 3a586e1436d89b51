# expect: reject
# class: syntax
# why: from __future__ import annotations
from __future__ import annotations
result = 1
