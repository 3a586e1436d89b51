# expect: ok
# class: crash_inputs
# why: two surrogate halves joined at run time make one emoji
# result: '😀'
a = "\ud83d"
b = "\ude00"
result = a + b
