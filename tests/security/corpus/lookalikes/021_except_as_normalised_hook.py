# expect: reject
# class: lookalikes
# why: U+FE4D (dashed low line) normalises (NFKC) to '_', so this 'except ... as' name is __aj_call, the guard's call hook
try:
    raise ValueError("x")
except ValueError as _﹍aj_call:
    n = len([1])
result = 1
