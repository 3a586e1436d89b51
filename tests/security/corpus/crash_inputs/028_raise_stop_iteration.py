# expect: reject
# class: crash_inputs
# why: raise StopIteration at top level turns into RuntimeError in a coroutine
raise StopIteration
