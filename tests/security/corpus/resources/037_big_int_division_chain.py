# expect: stopped
# class: resources
# why: divmod-style work on a 10-million-digit number
x = 7 ** 10**7
result = x % 1000
