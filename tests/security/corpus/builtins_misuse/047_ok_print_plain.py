# expect: ok
# class: builtins_misuse
# why: print of plain values
# result: 'printed'
print("hello", 1, sep="-")
result = "printed"
