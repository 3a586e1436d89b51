# expect: stopped
# class: resources
# why: int() of hexadecimal text has no digit limit: a 40-million-bit integer, then a division that runs for hours in C
x = int('f' * 10000000, 16)
result = x // (x >> 1000) % 7
