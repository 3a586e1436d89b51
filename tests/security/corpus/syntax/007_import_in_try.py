# expect: reject
# class: syntax
# why: an import inside try
try:
    import subprocess
except Exception:
    pass
result = 1
