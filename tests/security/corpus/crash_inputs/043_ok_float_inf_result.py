# expect: ok
# class: crash_inputs
# why: infinities in the result (not valid JSON numbers) come back
# result: [1e999, -1e999]
result = [float("inf"), -float("inf")]
