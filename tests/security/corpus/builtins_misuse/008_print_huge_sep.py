# expect: stopped
# class: builtins_misuse
# why: print with a gigantic separator
print("a", "b", sep="x" * 10**9)
result = 1
