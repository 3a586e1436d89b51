# expect: ok
# class: builtins_misuse
# why: round, abs, min, max, sum on plain numbers
# result: [2.57, 3, 2, 9, 6]
result = [round(2.567, 2), abs(-3), min(4, 2), max([1, 9]), sum([1, 2, 3])]
