# expect: reject
# class: crash_inputs
# why: StopIteration escaping from a comprehension
result = [1 for x in [1] if (1 / 0 if False else True)]
raise StopIteration("x")
