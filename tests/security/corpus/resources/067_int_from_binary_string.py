# expect: stopped
# class: resources
# why: int('1' * 10**7, 2) makes a 10-million-bit integer without an operator
x = int("1" * 10**7, 2)
y = x * x
result = y % 7
