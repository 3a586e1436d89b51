# expect: stopped
# class: resources
# why: join of a list of a million 10-million-character strings
s = "x" * 10**7
l = [s] * 10**6
result = len("".join(l))
