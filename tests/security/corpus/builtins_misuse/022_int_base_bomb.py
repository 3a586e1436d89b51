# expect: stopped
# class: builtins_misuse
# why: int() of a huge digit string
result = int("9" * 10**7)
