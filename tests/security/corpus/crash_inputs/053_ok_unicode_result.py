# expect: ok
# class: crash_inputs
# why: ordinary non-ASCII text in the result
# result: 'café – 東京 ✓'
result = "café – 東京 ✓"
