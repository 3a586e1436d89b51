# expect: reject
# class: builtins_misuse
# why: __import__ may not be mentioned
result = __import__("os").environ.get("CANARY_NAME")
