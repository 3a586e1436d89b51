# expect: stopped
# class: resources
# why: 2**(10**9)
x = 2 ** (10**9)
result = x % 7
