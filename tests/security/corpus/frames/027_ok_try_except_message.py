# expect: ok
# class: frames
# why: catching a safe exception and reading its message with str()
# result: "missing: 'missing'"
try:
    x = {}["missing"]
except KeyError as e:
    result = "missing: " + str(e)
