# expect: reject
# class: syntax
# why: import os
import os
result = os.environ.get("CANARY_NAME")
