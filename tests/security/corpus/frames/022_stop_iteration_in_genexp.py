# expect: reject
# class: frames
# why: StopIteration raised inside a generator expression
x = [1]
raise StopIteration("done")
