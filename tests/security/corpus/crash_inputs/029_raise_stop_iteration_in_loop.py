# expect: reject
# class: crash_inputs
# why: StopIteration raised inside a for loop body
for i in range(3):
    raise StopIteration(i)
result = 1
